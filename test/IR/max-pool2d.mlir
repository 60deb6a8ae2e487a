// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Max pooling, the ResNet stem: 3x3 window, stride 2, padding 1.

// CHECK-LABEL: func.func @stem_pool(%arg0: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
// CHECK-NEXT: %0 = quant_qdq.max_pool2d "pool1" %arg0 {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
// CHECK-NEXT: return %0 : tensor<1x64x56x56xf32>
func.func @stem_pool(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  %y = quant_qdq.max_pool2d "pool1" %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// Dilated max pooling: the window spans 2 * (2 - 1) + 1 = 3.
// CHECK-LABEL: func.func @dilated(%arg0: tensor<1x4x9x9xf32>) -> tensor<1x4x7x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.max_pool2d %arg0 {dilations = array<i64: 2, 1>, kernel_shape = array<i64: 2, 2>} : (tensor<1x4x9x9xf32>) -> tensor<1x4x7x8xf32>
// CHECK-NEXT: return %0 : tensor<1x4x7x8xf32>
func.func @dilated(%x: tensor<1x4x9x9xf32>) -> tensor<1x4x7x8xf32> {
  %y = quant_qdq.max_pool2d %x {dilations = array<i64: 2, 1>, kernel_shape = array<i64: 2, 2>} : (tensor<1x4x9x9xf32>) -> tensor<1x4x7x8xf32>
  return %y : tensor<1x4x7x8xf32>
}

// CHECK-LABEL: func.func @ceil_mode_nhwc(%arg0: tensor<2x15x15x3xf32>) -> tensor<2x8x8x3xf32> {
// CHECK-NEXT: %0 = quant_qdq.max_pool2d %arg0 {ceil_mode, kernel_shape = array<i64: 2, 2>, layout = #quant_qdq<layout nhwc>, strides = array<i64: 2, 2>} : (tensor<2x15x15x3xf32>) -> tensor<2x8x8x3xf32>
// CHECK-NEXT: return %0 : tensor<2x8x8x3xf32>
func.func @ceil_mode_nhwc(%x: tensor<2x15x15x3xf32>) -> tensor<2x8x8x3xf32> {
  %y = quant_qdq.max_pool2d %x {ceil_mode, kernel_shape = array<i64: 2, 2>, layout = #quant_qdq<layout nhwc>, strides = array<i64: 2, 2>} : (tensor<2x15x15x3xf32>) -> tensor<2x8x8x3xf32>
  return %y : tensor<2x8x8x3xf32>
}

// CHECK-LABEL: func.func @floor_mode_nhwc(%arg0: tensor<2x15x15x3xf32>) -> tensor<2x7x7x3xf32> {
// CHECK-NEXT: %0 = quant_qdq.max_pool2d %arg0 {kernel_shape = array<i64: 2, 2>, layout = #quant_qdq<layout nhwc>, strides = array<i64: 2, 2>} : (tensor<2x15x15x3xf32>) -> tensor<2x7x7x3xf32>
// CHECK-NEXT: return %0 : tensor<2x7x7x3xf32>
func.func @floor_mode_nhwc(%x: tensor<2x15x15x3xf32>) -> tensor<2x7x7x3xf32> {
  %y = quant_qdq.max_pool2d %x {kernel_shape = array<i64: 2, 2>, layout = #quant_qdq<layout nhwc>, strides = array<i64: 2, 2>} : (tensor<2x15x15x3xf32>) -> tensor<2x7x7x3xf32>
  return %y : tensor<2x7x7x3xf32>
}

// CHECK-LABEL: func.func @dynamic(%arg0: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
// CHECK-NEXT: %0 = quant_qdq.max_pool2d %arg0 {kernel_shape = array<i64: 2, 2>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
// CHECK-NEXT: return %0 : tensor<?x?x?x?xf32>
func.func @dynamic(%x: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %y = quant_qdq.max_pool2d %x {kernel_shape = array<i64: 2, 2>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %y : tensor<?x?x?x?xf32>
}
