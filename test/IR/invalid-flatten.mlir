// RUN: qdq-opt %s -split-input-file -verify-diagnostics

func.func @axis_too_large(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{axis 4 is out of range for rank 3}}
  // expected-error @+1 {{'quant_qdq.flatten' op failed to infer returned types}}
  %y = quant_qdq.flatten %x {axis = 4 : i64} : (tensor<2x3x4xf32>) -> tensor<24x1xf32>
  return
}

// -----

func.func @axis_too_negative(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{axis -4 is out of range for rank 3}}
  // expected-error @+1 {{'quant_qdq.flatten' op failed to infer returned types}}
  %y = quant_qdq.flatten %x {axis = -4 : i64} : (tensor<2x3x4xf32>) -> tensor<1x24xf32>
  return
}

// -----

func.func @wrong_split(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'quant_qdq.flatten' op inferred type(s) 'tensor<2x12xf32>' are incompatible with return type(s) of operation 'tensor<6x4xf32>'}}
  // expected-error @+1 {{'quant_qdq.flatten' op failed to infer returned types}}
  %y = quant_qdq.flatten %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return
}

// -----

// A dynamic dimension makes its side dynamic: it cannot be claimed static.
func.func @dynamic_batch_claimed_static(%x: tensor<?x8xf32>) {
  // expected-error @+2 {{'quant_qdq.flatten' op inferred type(s) 'tensor<?x8xf32>' are incompatible with return type(s) of operation 'tensor<4x9xf32>'}}
  // expected-error @+1 {{'quant_qdq.flatten' op failed to infer returned types}}
  %y = quant_qdq.flatten %x : (tensor<?x8xf32>) -> tensor<4x9xf32>
  return
}

// -----

func.func @result_rank(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'quant_qdq.flatten' op result #0 must be 2D tensor of floating-point values, but got 'tensor<24xf32>'}}
  %y = quant_qdq.flatten %x : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}
