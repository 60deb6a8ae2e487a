// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Fully connected layer with a Keras K x N kernel.

// CHECK-LABEL: func.func @classifier(%arg0: tensor<1x2048xf32>, %arg1: tensor<2048x1000xf32>, %arg2: tensor<1000xf32>) -> tensor<1x1000xf32> {
// CHECK-NEXT: %0 = quant_qdq.dense "fc1000" %arg0, %arg1, %arg2 : (tensor<1x2048xf32>, tensor<2048x1000xf32>, tensor<1000xf32>) -> tensor<1x1000xf32>
// CHECK-NEXT: return %0 : tensor<1x1000xf32>
func.func @classifier(%x: tensor<1x2048xf32>, %w: tensor<2048x1000xf32>, %b: tensor<1000xf32>) -> tensor<1x1000xf32> {
  %y = quant_qdq.dense "fc1000" %x, %w, %b : (tensor<1x2048xf32>, tensor<2048x1000xf32>, tensor<1000xf32>) -> tensor<1x1000xf32>
  return %y : tensor<1x1000xf32>
}

// CHECK-LABEL: func.func @no_bias_dynamic_batch(%arg0: tensor<?x64xf32>, %arg1: tensor<64x10xf32>) -> tensor<?x10xf32> {
// CHECK-NEXT: %0 = quant_qdq.dense %arg0, %arg1 : (tensor<?x64xf32>, tensor<64x10xf32>) -> tensor<?x10xf32>
// CHECK-NEXT: return %0 : tensor<?x10xf32>
func.func @no_bias_dynamic_batch(%x: tensor<?x64xf32>, %w: tensor<64x10xf32>) -> tensor<?x10xf32> {
  %y = quant_qdq.dense %x, %w : (tensor<?x64xf32>, tensor<64x10xf32>) -> tensor<?x10xf32>
  return %y : tensor<?x10xf32>
}

// A rank-1 input is a single feature vector.
// CHECK-LABEL: func.func @vector_input(%arg0: tensor<16xf32>, %arg1: tensor<16x4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %0 = quant_qdq.dense %arg0, %arg1 : (tensor<16xf32>, tensor<16x4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %0 : tensor<4xf32>
func.func @vector_input(%x: tensor<16xf32>, %w: tensor<16x4xf32>) -> tensor<4xf32> {
  %y = quant_qdq.dense %x, %w : (tensor<16xf32>, tensor<16x4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// Unknown feature count: the weight cannot contradict it.
// CHECK-LABEL: func.func @dynamic_features(%arg0: tensor<2x?xf32>, %arg1: tensor<8x3xf32>, %arg2: tensor<3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %0 = quant_qdq.dense %arg0, %arg1, %arg2 : (tensor<2x?xf32>, tensor<8x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %0 : tensor<2x3xf32>
func.func @dynamic_features(%x: tensor<2x?xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %y = quant_qdq.dense %x, %w, %b : (tensor<2x?xf32>, tensor<8x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
