// RUN: qdq-opt %s | qdq-opt | FileCheck %s

// Dilation widens the window to dilation * (kernel - 1) + 1.

// 3x3 kernel dilated by 2 spans 5: (32 + 4 - 5) / 1 + 1 = 32.
// CHECK-LABEL: func.func @dilated_same(%arg0: tensor<1x8x32x32xf32>, %arg1: tensor<8x8x3x3xf32>) -> tensor<1x8x32x32xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d %arg0, %arg1 {dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>} : (tensor<1x8x32x32xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x32x32xf32>
// CHECK-NEXT: return %0 : tensor<1x8x32x32xf32>
func.func @dilated_same(%x: tensor<1x8x32x32xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x32x32xf32> {
  %y = quant_qdq.conv2d %x, %w {dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>} : (tensor<1x8x32x32xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x32x32xf32>
  return %y : tensor<1x8x32x32xf32>
}

// Dilations 4 x 1 without padding: H = 32 - 9 + 1 = 24, W = 32 - 3 + 1 = 30.
// CHECK-LABEL: func.func @dilated_valid(%arg0: tensor<1x8x32x32xf32>, %arg1: tensor<4x8x3x3xf32>) -> tensor<1x4x24x30xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d %arg0, %arg1 {dilations = array<i64: 4, 1>} : (tensor<1x8x32x32xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x24x30xf32>
// CHECK-NEXT: return %0 : tensor<1x4x24x30xf32>
func.func @dilated_valid(%x: tensor<1x8x32x32xf32>, %w: tensor<4x8x3x3xf32>) -> tensor<1x4x24x30xf32> {
  %y = quant_qdq.conv2d %x, %w {dilations = array<i64: 4, 1>} : (tensor<1x8x32x32xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x24x30xf32>
  return %y : tensor<1x4x24x30xf32>
}

// Strided: floor((15 - 3) / 2) + 1 = 7 and floor((15 - 3) / 4) + 1 = 4.
// CHECK-LABEL: func.func @strided(%arg0: tensor<1x8x15x15xf32>, %arg1: tensor<4x8x3x3xf32>) -> tensor<1x4x7x4xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d %arg0, %arg1 {strides = array<i64: 2, 4>} : (tensor<1x8x15x15xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x7x4xf32>
// CHECK-NEXT: return %0 : tensor<1x4x7x4xf32>
func.func @strided(%x: tensor<1x8x15x15xf32>, %w: tensor<4x8x3x3xf32>) -> tensor<1x4x7x4xf32> {
  %y = quant_qdq.conv2d %x, %w {strides = array<i64: 2, 4>} : (tensor<1x8x15x15xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x7x4xf32>
  return %y : tensor<1x4x7x4xf32>
}

// Strided and dilated together, with a dynamic height:
// W = floor((17 + 2 - 5) / 2) + 1 = 8.
// CHECK-LABEL: func.func @strided_dilated_dynamic(%arg0: tensor<1x8x?x17xf32>, %arg1: tensor<4x8x3x3xf32>) -> tensor<1x4x?x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d %arg0, %arg1 {dilations = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x?x17xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x?x8xf32>
// CHECK-NEXT: return %0 : tensor<1x4x?x8xf32>
func.func @strided_dilated_dynamic(%x: tensor<1x8x?x17xf32>, %w: tensor<4x8x3x3xf32>) -> tensor<1x4x?x8xf32> {
  %y = quant_qdq.conv2d %x, %w {dilations = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x?x17xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x?x8xf32>
  return %y : tensor<1x4x?x8xf32>
}
