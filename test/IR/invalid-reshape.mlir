// RUN: qdq-opt %s -split-input-file -verify-diagnostics

func.func @element_count(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{cannot reshape 24 elements into 25}}
  // expected-error @+1 {{'quant_qdq.reshape' op failed to infer returned types}}
  %y = quant_qdq.reshape %x {shape = array<i64: 5, 5>} : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  return
}

// -----

func.func @not_a_multiple(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{cannot reshape 24 elements into a multiple of 5}}
  // expected-error @+1 {{'quant_qdq.reshape' op failed to infer returned types}}
  %y = quant_qdq.reshape %x {shape = array<i64: -1, 5>} : (tensor<2x3x4xf32>) -> tensor<?x5xf32>
  return
}

// -----

func.func @two_inferred_dims(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{shape may hold at most one -1}}
  // expected-error @+1 {{'quant_qdq.reshape' op failed to infer returned types}}
  %y = quant_qdq.reshape %x {shape = array<i64: -1, -1>} : (tensor<2x3x4xf32>) -> tensor<?x?xf32>
  return
}

// -----

// ONNX's 0 (copy the input dimension) is not supported.
func.func @zero_dim(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{shape entries must be positive or -1, got 0}}
  // expected-error @+1 {{'quant_qdq.reshape' op failed to infer returned types}}
  %y = quant_qdq.reshape %x {shape = array<i64: 0, 12>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return
}

// -----

func.func @negative_dim(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{shape entries must be positive or -1, got -2}}
  // expected-error @+1 {{'quant_qdq.reshape' op failed to infer returned types}}
  %y = quant_qdq.reshape %x {shape = array<i64: -2, 12>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return
}

// -----

// The result type must agree with `shape`.
func.func @result_disagrees_with_shape(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'quant_qdq.reshape' op inferred type(s) 'tensor<6x4xf32>' are incompatible with return type(s) of operation 'tensor<4x6xf32>'}}
  // expected-error @+1 {{'quant_qdq.reshape' op failed to infer returned types}}
  %y = quant_qdq.reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @result_rank(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'quant_qdq.reshape' op inferred type(s) 'tensor<24xf32>' are incompatible with return type(s) of operation 'tensor<24x1xf32>'}}
  // expected-error @+1 {{'quant_qdq.reshape' op failed to infer returned types}}
  %y = quant_qdq.reshape %x {shape = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<24x1xf32>
  return
}

// -----

func.func @missing_shape(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'quant_qdq.reshape' op requires attribute 'shape'}}
  %y = quant_qdq.reshape %x : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

func.func @shape_i32(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'quant_qdq.reshape' op attribute 'shape' failed to satisfy constraint: i64 dense array attribute}}
  %y = quant_qdq.reshape %x {shape = array<i32: 24>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}
