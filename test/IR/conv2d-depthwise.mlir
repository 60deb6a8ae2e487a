// RUN: qdq-opt %s | qdq-opt | FileCheck %s

// Depthwise convolution: groups equal to the input channels, one input
// channel per group (MobileNet).

// CHECK-LABEL: func.func @depthwise(%arg0: tensor<1x32x112x112xf32>, %arg1: tensor<32x1x3x3xf32>, %arg2: tensor<32xf32>) -> tensor<1x32x56x56xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d "dw1" %arg0, %arg1, %arg2 {groups = 32 : i64, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x32x112x112xf32>, tensor<32x1x3x3xf32>, tensor<32xf32>) -> tensor<1x32x56x56xf32>
// CHECK-NEXT: return %0 : tensor<1x32x56x56xf32>
func.func @depthwise(%x: tensor<1x32x112x112xf32>, %w: tensor<32x1x3x3xf32>, %b: tensor<32xf32>) -> tensor<1x32x56x56xf32> {
  %y = quant_qdq.conv2d "dw1" %x, %w, %b {groups = 32 : i64, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x32x112x112xf32>, tensor<32x1x3x3xf32>, tensor<32xf32>) -> tensor<1x32x56x56xf32>
  return %y : tensor<1x32x56x56xf32>
}

// Depth multiplier 2: 16 channels in, 32 out.
// CHECK-LABEL: func.func @depth_multiplier(%arg0: tensor<1x16x8x8xf32>, %arg1: tensor<32x1x3x3xf32>) -> tensor<1x32x8x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d %arg0, %arg1 {groups = 16 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x8x8xf32>
// CHECK-NEXT: return %0 : tensor<1x32x8x8xf32>
func.func @depth_multiplier(%x: tensor<1x16x8x8xf32>, %w: tensor<32x1x3x3xf32>) -> tensor<1x32x8x8xf32> {
  %y = quant_qdq.conv2d %x, %w {groups = 16 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x8x8xf32>
  return %y : tensor<1x32x8x8xf32>
}

// Depthwise in NHWC: the weight is kH x kW x 1 x C.
// CHECK-LABEL: func.func @depthwise_nhwc(%arg0: tensor<1x14x14x96xf32>, %arg1: tensor<5x5x1x96xf32>) -> tensor<1x14x14x96xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d %arg0, %arg1 {groups = 96 : i64, layout = #quant_qdq<layout nhwc>, pads = array<i64: 2, 2, 2, 2>} : (tensor<1x14x14x96xf32>, tensor<5x5x1x96xf32>) -> tensor<1x14x14x96xf32>
// CHECK-NEXT: return %0 : tensor<1x14x14x96xf32>
func.func @depthwise_nhwc(%x: tensor<1x14x14x96xf32>, %w: tensor<5x5x1x96xf32>) -> tensor<1x14x14x96xf32> {
  %y = quant_qdq.conv2d %x, %w {groups = 96 : i64, layout = #quant_qdq<layout nhwc>, pads = array<i64: 2, 2, 2, 2>} : (tensor<1x14x14x96xf32>, tensor<5x5x1x96xf32>) -> tensor<1x14x14x96xf32>
  return %y : tensor<1x14x14x96xf32>
}
