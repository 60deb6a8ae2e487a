// RUN: qdq-opt %s -split-input-file -verify-diagnostics

func.func @axis(%x: tensor<2x10xf32>) {
  // expected-error @+1 {{'quant_qdq.rms_norm' op axis 2 is out of range for rank 2}}
  %y = quant_qdq.rms_norm %x {axis = 2 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  return
}

// -----

func.func @epsilon(%x: tensor<2x10xf32>) {
  // expected-error @+1 {{'quant_qdq.rms_norm' op epsilon must be finite and non-negative, got -1}}
  %y = quant_qdq.rms_norm %x {epsilon = -1.0 : f32} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  return
}

// -----

// A scale that spans a dimension that is not normalized.
func.func @scale_beyond(%x: tensor<2x10xf32>, %g: tensor<2x10xf32>) {
  // expected-error @+1 {{'quant_qdq.rms_norm' op scale of type 'tensor<2x10xf32>' does not broadcast to the normalized dimensions of 'tensor<2x10xf32>'}}
  %y = quant_qdq.rms_norm %x scale %g : (tensor<2x10xf32>, tensor<2x10xf32>) -> tensor<2x10xf32>
  return
}

// -----

func.func @scale_element(%x: tensor<2x10xf32>, %g: tensor<10xf16>) {
  // expected-error @+1 {{'quant_qdq.rms_norm' op scale of type 'tensor<10xf16>' does not broadcast}}
  %y = quant_qdq.rms_norm %x scale %g : (tensor<2x10xf32>, tensor<10xf16>) -> tensor<2x10xf32>
  return
}

// -----

func.func @result_type(%x: tensor<2x10xf32>) {
  // expected-error @+1 {{'quant_qdq.rms_norm' op failed to verify that all of {input, output} have same type}}
  %y = quant_qdq.rms_norm %x : (tensor<2x10xf32>) -> tensor<2x11xf32>
  return
}
