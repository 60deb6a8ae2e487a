// RUN: qdq-opt %s -split-input-file -verify-diagnostics

func.func @softmax_axis(%x: tensor<2x10xf32>) {
  // expected-error @+1 {{'quant_qdq.softmax' op axis 2 is out of range for rank 2}}
  %y = quant_qdq.softmax %x {axis = 2 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  return
}

// -----

func.func @softmax_negative_axis(%x: tensor<2x10xf32>) {
  // expected-error @+1 {{'quant_qdq.softmax' op axis -3 is out of range for rank 2}}
  %y = quant_qdq.softmax %x {axis = -3 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  return
}

// -----

// The default axis, -1, does not exist in a scalar.
func.func @softmax_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'quant_qdq.softmax' op axis -1 is out of range for rank 0}}
  %y = quant_qdq.softmax %x : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @softmax_result_type(%x: tensor<2x10xf32>) {
  // expected-error @+1 {{'quant_qdq.softmax' op requires the same type for all operands and results}}
  %y = quant_qdq.softmax %x : (tensor<2x10xf32>) -> tensor<2x11xf32>
  return
}

// -----

func.func @dropout_rate_one(%x: tensor<2x10xf32>) {
  // expected-error @+1 {{'quant_qdq.dropout' op rate must be in [0, 1), got 1.000000e+00}}
  %y = quant_qdq.dropout %x {rate = 1.0 : f32} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  return
}

// -----

func.func @dropout_negative_rate(%x: tensor<2x10xf32>) {
  // expected-error @+1 {{'quant_qdq.dropout' op rate must be in [0, 1), got -1.000000e-01}}
  %y = quant_qdq.dropout %x {rate = -0.1 : f32} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  return
}

// -----

func.func @dropout_nan_rate(%x: tensor<2x10xf32>) {
  // expected-error @+1 {{'quant_qdq.dropout' op rate must be in [0, 1), got nan}}
  %y = quant_qdq.dropout %x {rate = 0x7FC00000 : f32} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  return
}

// -----

// The result has exactly the input type; a less static one is rejected too.
func.func @dropout_result_type(%x: tensor<2x10xf32>) {
  // expected-error @+2 {{'quant_qdq.dropout' op inferred type(s) 'tensor<2x10xf32>' are incompatible with return type(s) of operation 'tensor<?x10xf32>'}}
  // expected-error @+1 {{'quant_qdq.dropout' op failed to infer returned types}}
  %y = quant_qdq.dropout %x : (tensor<2x10xf32>) -> tensor<?x10xf32>
  return
}
