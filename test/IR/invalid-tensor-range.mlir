// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// quant_qdq.tensor_range reads a ranked f32 tensor; its results follow from
// it.

func.func @wrong_rows(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'quant_qdq.tensor_range' op inferred type(s) 'tensor<4xf32>', 'tensor<4xf32>', 'tensor<i64>' are incompatible with return type(s) of operation 'tensor<8xf32>', 'tensor<8xf32>', 'tensor<i64>'}}
  // expected-error @+1 {{'quant_qdq.tensor_range' op failed to infer returned types}}
  %r:3 = "quant_qdq.tensor_range"(%x) : (tensor<4x8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<i64>)
  return
}

// -----

func.func @row_below_rank_two(%x: tensor<100xf32>) {
  // expected-error @+2 {{'quant_qdq.tensor_range' op inferred type(s) 'tensor<f32>', 'tensor<f32>', 'tensor<i64>' are incompatible with return type(s) of operation 'tensor<100xf32>', 'tensor<100xf32>', 'tensor<i64>'}}
  // expected-error @+1 {{'quant_qdq.tensor_range' op failed to infer returned types}}
  %r:3 = "quant_qdq.tensor_range"(%x) : (tensor<100xf32>) -> (tensor<100xf32>, tensor<100xf32>, tensor<i64>)
  return
}

// -----

func.func @integers(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{'quant_qdq.tensor_range' op operand #0 must be ranked tensor of 32-bit float values}}
  %r:3 = "quant_qdq.tensor_range"(%x) : (tensor<4x8xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{'quant_qdq.tensor_range' op operand #0 must be ranked tensor of 32-bit float values}}
  %r:3 = "quant_qdq.tensor_range"(%x) : (tensor<*xf32>) -> (tensor<f32>, tensor<f32>, tensor<i64>)
  return
}
