// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// quant_qdq.histogram needs bins and a scale that place every |x|.

func.func @no_bins(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'quant_qdq.histogram' op attribute 'bins' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1}}
  %h = quant_qdq.histogram %x bins 0 bin_scale 1.0 : tensor<4x8xf32>
  return
}

// -----

func.func @zero_scale(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'quant_qdq.histogram' op needs a positive, finite bin_scale; got 0}}
  %h = quant_qdq.histogram %x bins 16 bin_scale 0.0 : tensor<4x8xf32>
  return
}

// -----

func.func @infinite_scale(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'quant_qdq.histogram' op needs a positive, finite bin_scale; got INF}}
  %h = quant_qdq.histogram %x bins 16 bin_scale 0x7FF0000000000000 : tensor<4x8xf32>
  return
}

// -----

func.func @wrong_result(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'quant_qdq.histogram' op inferred type(s) 'tensor<4x16xi64>' are incompatible with return type(s) of operation 'tensor<8x16xi64>'}}
  // expected-error @+1 {{'quant_qdq.histogram' op failed to infer returned types}}
  %h = "quant_qdq.histogram"(%x) <{bins = 16 : i64, bin_scale = 1.0 : f64}> : (tensor<4x8xf32>) -> tensor<8x16xi64>
  return
}

// -----

func.func @integers(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{'quant_qdq.histogram' op operand #0 must be ranked tensor of 32-bit float values}}
  %h = "quant_qdq.histogram"(%x) <{bins = 16 : i64, bin_scale = 1.0 : f64}> : (tensor<4x8xi32>) -> tensor<4x16xi64>
  return
}
