// RUN: qdq-opt %s --split-input-file --convert-onnx-to-quant-qdq | FileCheck %s

// Gemm with transB and a [1, N] bias (reshaped to [N], sharing the data);
// alpha != 1 and transA stay generic.
// CHECK-LABEL: func @gemm
func.func @gemm(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<8x4xf32>) {
  %b = arith.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  // CHECK: %[[B:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
  // CHECK: quant_qdq.dense "fc" %{{.*}}, %{{.*}}, %[[B]] {transpose_weight} : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %0 = quant_qdq.generic "Gemm" "fc" %x, %w, %b {layer_attributes = {transB = 1 : i64}} : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  // CHECK: quant_qdq.generic "Gemm" "scaled"
  %1 = quant_qdq.generic "Gemm" "scaled" %x, %w {layer_attributes = {alpha = 2.0 : f32, transB = 1 : i64}} : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  // CHECK: quant_qdq.generic "Gemm" "transposed_input"
  %2 = quant_qdq.generic "Gemm" "transposed_input" %x, %x {layer_attributes = {transA = 1 : i64}} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<8x4xf32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<8x4xf32>
}

// -----

// MatMul by a constant 2-D weight is a dense layer, and the Add of a
// constant bias vector that follows joins it (the layer keeps the MatMul's
// name). A MatMul of two activations stays generic.
// CHECK-LABEL: func @matmul_add
func.func @matmul_add(%x: tensor<2x5x8xf32>, %y: tensor<2x8x5xf32>) -> (tensor<2x5x4xf32>, tensor<2x5x5xf32>) {
  %w = arith.constant dense<0.5> : tensor<8x4xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  // CHECK: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<8x4xf32>
  // CHECK: %[[B:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
  // CHECK: %[[D:.*]] = quant_qdq.dense "proj" %{{.*}}, %[[W]], %[[B]] : (tensor<2x5x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<2x5x4xf32>
  // CHECK-NOT: quant_qdq.add
  %0 = quant_qdq.generic "MatMul" "proj" %x, %w : (tensor<2x5x8xf32>, tensor<8x4xf32>) -> tensor<2x5x4xf32>
  %1 = quant_qdq.generic "Add" "proj_bias" %0, %b : (tensor<2x5x4xf32>, tensor<4xf32>) -> tensor<2x5x4xf32>
  // CHECK: quant_qdq.generic "MatMul" "scores"
  %2 = quant_qdq.generic "MatMul" "scores" %x, %y : (tensor<2x5x8xf32>, tensor<2x8x5xf32>) -> tensor<2x5x5xf32>
  // CHECK: return %[[D]]
  return %1, %2 : tensor<2x5x4xf32>, tensor<2x5x5xf32>
}

// -----

// The bias does not join a dense that something else reads too.
// CHECK-LABEL: func @dense_read_twice
func.func @dense_read_twice(%x: tensor<2x8xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %w = arith.constant dense<0.5> : tensor<8x4xf32>
  %b = arith.constant dense<1.0> : tensor<4xf32>
  // CHECK: %[[D:.*]] = quant_qdq.dense "proj" %{{.*}}, %{{.*}} : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // CHECK: quant_qdq.add "bias" %[[D]], %{{.*}}
  %0 = quant_qdq.generic "MatMul" "proj" %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %1 = quant_qdq.generic "Add" "bias" %0, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}
