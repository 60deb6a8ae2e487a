// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Keras layout: the input is N x H x W x C and the weight kH x kW x C x O.

// CHECK-LABEL: func.func @nhwc(%arg0: tensor<1x224x224x3xf32>, %arg1: tensor<3x3x3x32xf32>, %arg2: tensor<32xf32>) -> tensor<1x112x112x32xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d "Conv1" %arg0, %arg1, %arg2 {layout = #quant_qdq<layout nhwc>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x224x224x3xf32>, tensor<3x3x3x32xf32>, tensor<32xf32>) -> tensor<1x112x112x32xf32>
// CHECK-NEXT: return %0 : tensor<1x112x112x32xf32>
func.func @nhwc(%x: tensor<1x224x224x3xf32>, %w: tensor<3x3x3x32xf32>, %b: tensor<32xf32>) -> tensor<1x112x112x32xf32> {
  %y = quant_qdq.conv2d "Conv1" %x, %w, %b {layout = #quant_qdq<layout nhwc>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x224x224x3xf32>, tensor<3x3x3x32xf32>, tensor<32xf32>) -> tensor<1x112x112x32xf32>
  return %y : tensor<1x112x112x32xf32>
}

// Rectangular kernel and strides: height and width are computed apart.
// CHECK-LABEL: func.func @nhwc_rectangular(%arg0: tensor<?x20x30x4xf32>, %arg1: tensor<1x7x4x8xf32>) -> tensor<?x10x8x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d %arg0, %arg1 {layout = #quant_qdq<layout nhwc>, strides = array<i64: 2, 3>} : (tensor<?x20x30x4xf32>, tensor<1x7x4x8xf32>) -> tensor<?x10x8x8xf32>
// CHECK-NEXT: return %0 : tensor<?x10x8x8xf32>
func.func @nhwc_rectangular(%x: tensor<?x20x30x4xf32>, %w: tensor<1x7x4x8xf32>) -> tensor<?x10x8x8xf32> {
  %y = quant_qdq.conv2d %x, %w {layout = #quant_qdq<layout nhwc>, strides = array<i64: 2, 3>} : (tensor<?x20x30x4xf32>, tensor<1x7x4x8xf32>) -> tensor<?x10x8x8xf32>
  return %y : tensor<?x10x8x8xf32>
}
