// RUN: qdq-opt %s -canonicalize | FileCheck %s

// fake_quant is idempotent: a second one with the same known parameters
// folds into the first. A single one is never removed.

// CHECK-LABEL: func.func @twice(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[F:.*]] = quant_qdq.fake_quant %[[X]] <bits = 8> scale [1.000000e-01] : tensor<4xf32>
// CHECK-NEXT: return %[[F]] : tensor<4xf32>
func.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quant_qdq.fake_quant %x <bits = 8> scale [0.1] : tensor<4xf32>
  %1 = quant_qdq.fake_quant %0 <bits = 8> scale [0.1] : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// CHECK-LABEL: func.func @three_times_per_axis(
// CHECK-SAME: %[[X:.*]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[F:.*]] = quant_qdq.fake_quant %[[X]] <bits = 4, symmetric = false, axis = 0> scale [1.000000e-01, 2.000000e-01] zero_point [1, 2] : tensor<2x4xf32>
// CHECK-NEXT: return %[[F]] : tensor<2x4xf32>
func.func @three_times_per_axis(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = quant_qdq.fake_quant %x <bits = 4, symmetric = false, axis = 0> scale [0.1, 0.2] zero_point [1, 2] : tensor<2x4xf32>
  %1 = quant_qdq.fake_quant %0 <bits = 4, symmetric = false, axis = 0> scale [0.1, 0.2] zero_point [1, 2] : tensor<2x4xf32>
  %2 = quant_qdq.fake_quant %1 <bits = 4, symmetric = false, axis = 0> scale [0.1, 0.2] zero_point [1, 2] : tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @single(
// CHECK-NEXT: quant_qdq.fake_quant
// CHECK-NEXT: return
func.func @single(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quant_qdq.fake_quant %x <bits = 8> scale [0.1] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @different_scales(
// CHECK-NEXT: quant_qdq.fake_quant %{{.*}} scale [1.000000e-01]
// CHECK-NEXT: quant_qdq.fake_quant %{{.*}} scale [2.000000e-01]
// CHECK-NEXT: return
func.func @different_scales(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quant_qdq.fake_quant %x <bits = 8> scale [0.1] : tensor<4xf32>
  %1 = quant_qdq.fake_quant %0 <bits = 8> scale [0.2] : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// CHECK-LABEL: func.func @different_bits(
// CHECK-NEXT: quant_qdq.fake_quant %{{.*}} <bits = 8>
// CHECK-NEXT: quant_qdq.fake_quant %{{.*}} <bits = 4>
// CHECK-NEXT: return
func.func @different_bits(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quant_qdq.fake_quant %x <bits = 8> scale [0.1] : tensor<4xf32>
  %1 = quant_qdq.fake_quant %0 <bits = 4> scale [0.1] : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// CHECK-LABEL: func.func @uncalibrated(
// CHECK-NEXT: quant_qdq.fake_quant
// CHECK-NEXT: quant_qdq.fake_quant
// CHECK-NEXT: return
func.func @uncalibrated(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quant_qdq.fake_quant %x <bits = 8> : tensor<4xf32>
  %1 = quant_qdq.fake_quant %0 <bits = 8> : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// A layer in between: not idempotence.
// CHECK-LABEL: func.func @layer_in_between(
// CHECK-NEXT: quant_qdq.fake_quant
// CHECK-NEXT: quant_qdq.activation
// CHECK-NEXT: quant_qdq.fake_quant
// CHECK-NEXT: return
func.func @layer_in_between(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quant_qdq.fake_quant %x <bits = 8> scale [0.1] : tensor<4xf32>
  %1 = quant_qdq.activation sigmoid %0 : tensor<4xf32>
  %2 = quant_qdq.fake_quant %1 <bits = 8> scale [0.1] : tensor<4xf32>
  return %2 : tensor<4xf32>
}
