// RUN: qdq-opt %s -canonicalize | FileCheck %s

// CHECK-LABEL: func.func @identity(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK-NEXT: return %[[X]] : tensor<1x3x8x8xf32>
func.func @identity(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %0 = quant_qdq.transpose %x {perm = array<i64: 0, 1, 2, 3>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// The identity permutation folds on dynamic shapes too.
// CHECK-LABEL: func.func @identity_dynamic(
// CHECK-SAME: %[[X:.*]]: tensor<?x?xf32>)
// CHECK-NEXT: return %[[X]] : tensor<?x?xf32>
func.func @identity_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = quant_qdq.transpose %x {perm = array<i64: 0, 1>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A permutation that moves only equal-sized dimensions keeps the type but
// moves the data: it stays.
// CHECK-LABEL: func.func @swap_square(
// CHECK-SAME: %[[X:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[T:.*]] = quant_qdq.transpose %[[X]] {perm = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: return %[[T]] : tensor<4x4xf32>
func.func @swap_square(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = quant_qdq.transpose %x {perm = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @to_nhwc(
// CHECK-NEXT: %[[T:.*]] = quant_qdq.transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @to_nhwc(%x: tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32> {
  %0 = quant_qdq.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  return %0 : tensor<1x8x8x3xf32>
}

// An identity permutation with a refined result type is not a no-op.
// CHECK-LABEL: func.func @identity_refining(
// CHECK-NEXT: quant_qdq.transpose
// CHECK-NEXT: return
func.func @identity_refining(%x: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %0 = quant_qdq.transpose %x {perm = array<i64: 0, 1>} : (tensor<?x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// A transpose and its inverse are not folded together (only identities are).
// CHECK-LABEL: func.func @round_trip(
// CHECK-NEXT: quant_qdq.transpose %{{.*}} {perm = array<i64: 1, 0>}
// CHECK-NEXT: quant_qdq.transpose %{{.*}} {perm = array<i64: 1, 0>}
// CHECK-NEXT: return
func.func @round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = quant_qdq.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = quant_qdq.transpose %0 {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
