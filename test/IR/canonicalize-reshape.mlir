// RUN: qdq-opt %s -canonicalize | FileCheck %s

// A reshape to the same static type does nothing and folds away.

// CHECK-LABEL: func.func @same_static_type(
// CHECK-SAME: %[[X:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4x4xf32>
func.func @same_static_type(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = quant_qdq.reshape %x {shape = array<i64: 4, 4>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @same_static_type_with_inferred_dim(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3x4xf32>
func.func @same_static_type_with_inferred_dim(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = quant_qdq.reshape %x {shape = array<i64: 2, -1, 4>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// A real reshape stays.
// CHECK-LABEL: func.func @real_reshape(
// CHECK-SAME: %[[X:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[R:.*]] = quant_qdq.reshape %[[X]] {shape = array<i64: 2, 8>} : (tensor<4x4xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x8xf32>
func.func @real_reshape(%x: tensor<4x4xf32>) -> tensor<2x8xf32> {
  %0 = quant_qdq.reshape %x {shape = array<i64: 2, 8>} : (tensor<4x4xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// With a dynamic dimension the same type may still be a different shape
// (?x4 to -1x4 is an identity, but the fold does not reason about it).
// CHECK-LABEL: func.func @same_dynamic_type(
// CHECK-NEXT: %[[R:.*]] = quant_qdq.reshape %{{.*}} {shape = array<i64: -1, 4>} : (tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @same_dynamic_type(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = quant_qdq.reshape %x {shape = array<i64: -1, 4>} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// A reshape that only refines the type is not a no-op either.
// CHECK-LABEL: func.func @refining(
// CHECK-NEXT: quant_qdq.reshape
// CHECK-NEXT: return
func.func @refining(%x: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %0 = quant_qdq.reshape %x {shape = array<i64: 2, 4>} : (tensor<?x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// Chains fold link by link.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:.*]]: tensor<6xf32>)
// CHECK-NEXT: %[[R:.*]] = quant_qdq.reshape %[[X]] {shape = array<i64: 2, 3>} : (tensor<6xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x3xf32>
func.func @chain(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  %0 = quant_qdq.reshape %x {shape = array<i64: 6>} : (tensor<6xf32>) -> tensor<6xf32>
  %1 = quant_qdq.reshape %0 {shape = array<i64: 2, 3>} : (tensor<6xf32>) -> tensor<2x3xf32>
  %2 = quant_qdq.reshape %1 {shape = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
