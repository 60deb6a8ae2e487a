// RUN: qdq-opt %s -canonicalize | FileCheck %s

// CHECK-LABEL: func.func @single_input(
// CHECK-SAME: %[[X:.*]]: tensor<1x64x7x7xf32>)
// CHECK-NEXT: return %[[X]] : tensor<1x64x7x7xf32>
func.func @single_input(%x: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %0 = quant_qdq.concat "cat" %x {axis = 1 : i64} : (tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}

// CHECK-LABEL: func.func @single_input_dynamic(
// CHECK-SAME: %[[X:.*]]: tensor<?x?xf32>)
// CHECK-NEXT: return %[[X]] : tensor<?x?xf32>
func.func @single_input_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = quant_qdq.concat %x {axis = -1 : i64} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @two_inputs(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[C:.*]] = quant_qdq.concat %[[A]], %[[B]] {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: return %[[C]] : tensor<4x3xf32>
func.func @two_inputs(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = quant_qdq.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// The same value twice is still a concatenation.
// CHECK-LABEL: func.func @same_value_twice(
// CHECK-SAME: %[[A:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[C:.*]] = quant_qdq.concat %[[A]], %[[A]] {axis = 0 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<6xf32>
// CHECK-NEXT: return %[[C]]
func.func @same_value_twice(%a: tensor<3xf32>) -> tensor<6xf32> {
  %0 = quant_qdq.concat %a, %a {axis = 0 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// A single input with a refined result type is not a no-op.
// CHECK-LABEL: func.func @single_input_refining(
// CHECK-NEXT: quant_qdq.concat
// CHECK-NEXT: return
func.func @single_input_refining(%x: tensor<?x3xf32>) -> tensor<2x3xf32> {
  %0 = quant_qdq.concat %x {axis = 1 : i64} : (tensor<?x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
