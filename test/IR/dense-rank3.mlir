// RUN: qdq-opt %s | qdq-opt | FileCheck %s

// Dense over the last dimension of a rank-3 input (a transformer's
// projection): the leading dimensions pass through.

// CHECK-LABEL: func.func @projection(%arg0: tensor<8x128x768xf32>, %arg1: tensor<768x3072xf32>, %arg2: tensor<3072xf32>) -> tensor<8x128x3072xf32> {
// CHECK-NEXT: %0 = quant_qdq.dense "ffn_in" %arg0, %arg1, %arg2 : (tensor<8x128x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>) -> tensor<8x128x3072xf32>
// CHECK-NEXT: return %0 : tensor<8x128x3072xf32>
func.func @projection(%x: tensor<8x128x768xf32>, %w: tensor<768x3072xf32>, %b: tensor<3072xf32>) -> tensor<8x128x3072xf32> {
  %y = quant_qdq.dense "ffn_in" %x, %w, %b : (tensor<8x128x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>) -> tensor<8x128x3072xf32>
  return %y : tensor<8x128x3072xf32>
}

// CHECK-LABEL: func.func @projection_dynamic(%arg0: tensor<?x?x64xf32>, %arg1: tensor<16x64xf32>) -> tensor<?x?x16xf32> {
// CHECK-NEXT: %0 = quant_qdq.dense %arg0, %arg1 {transpose_weight} : (tensor<?x?x64xf32>, tensor<16x64xf32>) -> tensor<?x?x16xf32>
// CHECK-NEXT: return %0 : tensor<?x?x16xf32>
func.func @projection_dynamic(%x: tensor<?x?x64xf32>, %w: tensor<16x64xf32>) -> tensor<?x?x16xf32> {
  %y = quant_qdq.dense %x, %w {transpose_weight} : (tensor<?x?x64xf32>, tensor<16x64xf32>) -> tensor<?x?x16xf32>
  return %y : tensor<?x?x16xf32>
}

// CHECK-LABEL: func.func @rank4_bf16(%arg0: tensor<2x3x4x5xbf16>, %arg1: tensor<5x6xbf16>) -> tensor<2x3x4x6xbf16> {
// CHECK-NEXT: %0 = quant_qdq.dense %arg0, %arg1 : (tensor<2x3x4x5xbf16>, tensor<5x6xbf16>) -> tensor<2x3x4x6xbf16>
// CHECK-NEXT: return %0 : tensor<2x3x4x6xbf16>
func.func @rank4_bf16(%x: tensor<2x3x4x5xbf16>, %w: tensor<5x6xbf16>) -> tensor<2x3x4x6xbf16> {
  %y = quant_qdq.dense %x, %w : (tensor<2x3x4x5xbf16>, tensor<5x6xbf16>) -> tensor<2x3x4x6xbf16>
  return %y : tensor<2x3x4x6xbf16>
}
