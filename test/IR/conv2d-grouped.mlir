// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Grouped convolution (ResNeXt): the weight holds C/groups input channels.

// CHECK-LABEL: func.func @grouped(%arg0: tensor<1x64x56x56xf32>, %arg1: tensor<128x2x3x3xf32>, %arg2: tensor<128xf32>) -> tensor<1x128x56x56xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d "group_conv" %arg0, %arg1, %arg2 {groups = 32 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x56x56xf32>, tensor<128x2x3x3xf32>, tensor<128xf32>) -> tensor<1x128x56x56xf32>
// CHECK-NEXT: return %0 : tensor<1x128x56x56xf32>
func.func @grouped(%x: tensor<1x64x56x56xf32>, %w: tensor<128x2x3x3xf32>, %b: tensor<128xf32>) -> tensor<1x128x56x56xf32> {
  %y = quant_qdq.conv2d "group_conv" %x, %w, %b {groups = 32 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x56x56xf32>, tensor<128x2x3x3xf32>, tensor<128xf32>) -> tensor<1x128x56x56xf32>
  return %y : tensor<1x128x56x56xf32>
}
// GENERIC-LABEL: "func.func"
// GENERIC: "quant_qdq.conv2d"(%{{.*}}, %{{.*}}, %{{.*}}) <{dilations = array<i64: 1, 1>, groups = 32 : i64, layout = #quant_qdq<layout nchw>, name = "group_conv", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}> : (tensor<1x64x56x56xf32>, tensor<128x2x3x3xf32>, tensor<128xf32>) -> tensor<1x128x56x56xf32>

// Two groups of four channels, each producing three outputs.
// CHECK-LABEL: func.func @two_groups(%arg0: tensor<2x8x9x9xf32>, %arg1: tensor<6x4x3x3xf32>) -> tensor<2x6x4x4xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d %arg0, %arg1 {groups = 2 : i64, strides = array<i64: 2, 2>} : (tensor<2x8x9x9xf32>, tensor<6x4x3x3xf32>) -> tensor<2x6x4x4xf32>
// CHECK-NEXT: return %0 : tensor<2x6x4x4xf32>
func.func @two_groups(%x: tensor<2x8x9x9xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<2x6x4x4xf32> {
  %y = quant_qdq.conv2d %x, %w {groups = 2 : i64, strides = array<i64: 2, 2>} : (tensor<2x8x9x9xf32>, tensor<6x4x3x3xf32>) -> tensor<2x6x4x4xf32>
  return %y : tensor<2x6x4x4xf32>
}
// GENERIC-LABEL: "func.func"
// GENERIC: "quant_qdq.conv2d"(%{{.*}}, %{{.*}}) <{dilations = array<i64: 1, 1>, groups = 2 : i64, layout = #quant_qdq<layout nchw>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}> : (tensor<2x8x9x9xf32>, tensor<6x4x3x3xf32>) -> tensor<2x6x4x4xf32>

// Grouped, with input channels unknown: the weight decides nothing about them.
// CHECK-LABEL: func.func @grouped_dynamic_channels(%arg0: tensor<1x?x8x8xf32>, %arg1: tensor<8x2x1x1xf32>) -> tensor<1x8x8x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d %arg0, %arg1 {groups = 4 : i64} : (tensor<1x?x8x8xf32>, tensor<8x2x1x1xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT: return %0 : tensor<1x8x8x8xf32>
func.func @grouped_dynamic_channels(%x: tensor<1x?x8x8xf32>, %w: tensor<8x2x1x1xf32>) -> tensor<1x8x8x8xf32> {
  %y = quant_qdq.conv2d %x, %w {groups = 4 : i64} : (tensor<1x?x8x8xf32>, tensor<8x2x1x1xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}
