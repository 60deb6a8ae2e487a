// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Average pooling: the output keeps the input channels.

// CHECK-LABEL: func.func @basic(%arg0: tensor<1x64x56x56xf32>) -> tensor<1x64x28x28xf32> {
// CHECK-NEXT: %0 = quant_qdq.avg_pool2d "pool" %arg0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x64x56x56xf32>) -> tensor<1x64x28x28xf32>
// CHECK-NEXT: return %0 : tensor<1x64x28x28xf32>
func.func @basic(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x28x28xf32> {
  %y = quant_qdq.avg_pool2d "pool" %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x64x56x56xf32>) -> tensor<1x64x28x28xf32>
  return %y : tensor<1x64x28x28xf32>
}

// Default strides are 1: 8 - 3 + 1 = 6.
// CHECK-LABEL: func.func @unit_strides(%arg0: tensor<2x4x8x8xf32>) -> tensor<2x4x6x6xf32> {
// CHECK-NEXT: %0 = quant_qdq.avg_pool2d %arg0 {kernel_shape = array<i64: 3, 3>} : (tensor<2x4x8x8xf32>) -> tensor<2x4x6x6xf32>
// CHECK-NEXT: return %0 : tensor<2x4x6x6xf32>
func.func @unit_strides(%x: tensor<2x4x8x8xf32>) -> tensor<2x4x6x6xf32> {
  %y = quant_qdq.avg_pool2d %x {kernel_shape = array<i64: 3, 3>} : (tensor<2x4x8x8xf32>) -> tensor<2x4x6x6xf32>
  return %y : tensor<2x4x6x6xf32>
}

// CHECK-LABEL: func.func @padded(%arg0: tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32> {
// CHECK-NEXT: %0 = quant_qdq.avg_pool2d %arg0 {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT: return %0 : tensor<1x4x4x4xf32>
func.func @padded(%x: tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32> {
  %y = quant_qdq.avg_pool2d %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @nhwc_dynamic(%arg0: tensor<?x32x?x16xf32>) -> tensor<?x16x?x16xf32> {
// CHECK-NEXT: %0 = quant_qdq.avg_pool2d %arg0 {kernel_shape = array<i64: 2, 2>, layout = #quant_qdq<layout nhwc>, strides = array<i64: 2, 2>} : (tensor<?x32x?x16xf32>) -> tensor<?x16x?x16xf32>
// CHECK-NEXT: return %0 : tensor<?x16x?x16xf32>
func.func @nhwc_dynamic(%x: tensor<?x32x?x16xf32>) -> tensor<?x16x?x16xf32> {
  %y = quant_qdq.avg_pool2d %x {kernel_shape = array<i64: 2, 2>, layout = #quant_qdq<layout nhwc>, strides = array<i64: 2, 2>} : (tensor<?x32x?x16xf32>) -> tensor<?x16x?x16xf32>
  return %y : tensor<?x16x?x16xf32>
}

// avg_pool2d has no dilations: an attribute of that name is a discardable
// one, kept as is, and the window is not dilated (8 - 2 + 1 = 7).
// CHECK-LABEL: func.func @not_dilated(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32> {
// CHECK-NEXT: %0 = quant_qdq.avg_pool2d %arg0 {dilations = array<i64: 2, 2>, kernel_shape = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
// CHECK-NEXT: return %0 : tensor<1x3x7x7xf32>
func.func @not_dilated(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32> {
  %y = quant_qdq.avg_pool2d %x {dilations = array<i64: 2, 2>, kernel_shape = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  return %y : tensor<1x3x7x7xf32>
}
