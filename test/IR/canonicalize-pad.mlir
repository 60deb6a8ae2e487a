// RUN: qdq-opt %s -canonicalize | FileCheck %s

// CHECK-LABEL: func.func @zero_pad(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK-NEXT: return %[[X]] : tensor<1x3x8x8xf32>
func.func @zero_pad(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %0 = quant_qdq.pad %x {pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// Zero padding does nothing in any mode and with any fill value.
// CHECK-LABEL: func.func @zero_pad_modes(
// CHECK-SAME: %[[X:.*]]: tensor<?x4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<?x4xf32>
func.func @zero_pad_modes(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = quant_qdq.pad %x {mode = #quant_qdq<pad_mode reflect>, pads = array<i64: 0, 0, 0, 0>} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = quant_qdq.pad %0 {mode = #quant_qdq<pad_mode edge>, pads = array<i64: 0, 0, 0, 0>} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = quant_qdq.pad %1 {pads = array<i64: 0, 0, 0, 0>, value = 3.0 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @real_pad(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK-NEXT: %[[P:.*]] = quant_qdq.pad %[[X]] {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
// CHECK-NEXT: return %[[P]] : tensor<1x3x10x10xf32>
func.func @real_pad(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32> {
  %0 = quant_qdq.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
  return %0 : tensor<1x3x10x10xf32>
}

// One non-zero pad is enough to keep it.
// CHECK-LABEL: func.func @one_side(
// CHECK-NEXT: %[[P:.*]] = quant_qdq.pad %{{.*}} {mode = #quant_qdq<pad_mode edge>, pads = array<i64: 0, 0, 0, 1>} : (tensor<2x2xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[P]]
func.func @one_side(%x: tensor<2x2xf32>) -> tensor<2x3xf32> {
  %0 = quant_qdq.pad %x {mode = #quant_qdq<pad_mode edge>, pads = array<i64: 0, 0, 0, 1>} : (tensor<2x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Zero pads with a refined result type are not a no-op.
// CHECK-LABEL: func.func @zero_pad_refining(
// CHECK-NEXT: quant_qdq.pad
// CHECK-NEXT: return
func.func @zero_pad_refining(%x: tensor<?x4xf32>) -> tensor<3x4xf32> {
  %0 = quant_qdq.pad %x {pads = array<i64: 0, 0, 0, 0>} : (tensor<?x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
