// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Round trip of quant_qdq.conv2d in its default NCHW layout. Attributes
// holding their default values are not printed.

// CHECK-LABEL: func.func @stem(%arg0: tensor<1x3x224x224xf32>, %arg1: tensor<64x3x7x7xf32>, %arg2: tensor<64xf32>) -> tensor<1x64x112x112xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d "conv1" %arg0, %arg1, %arg2 {pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
// CHECK-NEXT: return %0 : tensor<1x64x112x112xf32>
func.func @stem(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %b: tensor<64xf32>) -> tensor<1x64x112x112xf32> {
  %y = quant_qdq.conv2d "conv1" %x, %w, %b {pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
  return %y : tensor<1x64x112x112xf32>
}

// CHECK-LABEL: func.func @defaults_elided(%arg0: tensor<2x16x8x8xf32>, %arg1: tensor<32x16x3x3xf32>) -> tensor<2x32x6x6xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d %arg0, %arg1 : (tensor<2x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<2x32x6x6xf32>
// CHECK-NEXT: return %0 : tensor<2x32x6x6xf32>
func.func @defaults_elided(%x: tensor<2x16x8x8xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<2x32x6x6xf32> {
  %y = quant_qdq.conv2d %x, %w {layout = #quant_qdq<layout nchw>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<2x32x6x6xf32>
  return %y : tensor<2x32x6x6xf32>
}

// CHECK-LABEL: func.func @asymmetric_pads(%arg0: tensor<1x4x10x10xf32>, %arg1: tensor<8x4x3x3xf32>) -> tensor<1x8x9x12xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d "c" %arg0, %arg1 {pads = array<i64: 0, 1, 1, 3>} : (tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x9x12xf32>
// CHECK-NEXT: return %0 : tensor<1x8x9x12xf32>
func.func @asymmetric_pads(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x9x12xf32> {
  %y = quant_qdq.conv2d "c" %x, %w {pads = array<i64: 0, 1, 1, 3>} : (tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x9x12xf32>
  return %y : tensor<1x8x9x12xf32>
}

// CHECK-LABEL: func.func @dynamic_batch(%arg0: tensor<?x3x32x32xf32>, %arg1: tensor<16x3x1x1xf32>, %arg2: tensor<16xf32>) -> tensor<?x16x32x32xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d %arg0, %arg1, %arg2 : (tensor<?x3x32x32xf32>, tensor<16x3x1x1xf32>, tensor<16xf32>) -> tensor<?x16x32x32xf32>
// CHECK-NEXT: return %0 : tensor<?x16x32x32xf32>
func.func @dynamic_batch(%x: tensor<?x3x32x32xf32>, %w: tensor<16x3x1x1xf32>, %b: tensor<16xf32>) -> tensor<?x16x32x32xf32> {
  %y = quant_qdq.conv2d %x, %w, %b : (tensor<?x3x32x32xf32>, tensor<16x3x1x1xf32>, tensor<16xf32>) -> tensor<?x16x32x32xf32>
  return %y : tensor<?x16x32x32xf32>
}

// A result type may be more static than the inferred one.
// CHECK-LABEL: func.func @more_static_result(%arg0: tensor<?x3x32x32xf32>, %arg1: tensor<16x3x1x1xf32>) -> tensor<4x16x32x32xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d %arg0, %arg1 : (tensor<?x3x32x32xf32>, tensor<16x3x1x1xf32>) -> tensor<4x16x32x32xf32>
// CHECK-NEXT: return %0 : tensor<4x16x32x32xf32>
func.func @more_static_result(%x: tensor<?x3x32x32xf32>, %w: tensor<16x3x1x1xf32>) -> tensor<4x16x32x32xf32> {
  %y = quant_qdq.conv2d %x, %w : (tensor<?x3x32x32xf32>, tensor<16x3x1x1xf32>) -> tensor<4x16x32x32xf32>
  return %y : tensor<4x16x32x32xf32>
}

// CHECK-LABEL: func.func @f16(%arg0: tensor<1x8x4x4xf16>, %arg1: tensor<8x8x3x3xf16>, %arg2: tensor<8xf16>) -> tensor<1x8x2x2xf16> {
// CHECK-NEXT: %0 = quant_qdq.conv2d %arg0, %arg1, %arg2 : (tensor<1x8x4x4xf16>, tensor<8x8x3x3xf16>, tensor<8xf16>) -> tensor<1x8x2x2xf16>
// CHECK-NEXT: return %0 : tensor<1x8x2x2xf16>
func.func @f16(%x: tensor<1x8x4x4xf16>, %w: tensor<8x8x3x3xf16>, %b: tensor<8xf16>) -> tensor<1x8x2x2xf16> {
  %y = quant_qdq.conv2d %x, %w, %b : (tensor<1x8x4x4xf16>, tensor<8x8x3x3xf16>, tensor<8xf16>) -> tensor<1x8x2x2xf16>
  return %y : tensor<1x8x2x2xf16>
}
