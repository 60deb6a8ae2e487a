// RUN: qdq-opt %s -canonicalize | FileCheck %s

// dequantize(quantize(x)) is fake quantization: a real computation that
// rounds and clamps x. Canonicalization never removes it, whatever the
// parameters.

// CHECK-LABEL: func.func @qdq_pair(
// CHECK-SAME: %[[X:.*]]: tensor<1x8xf32>)
// CHECK-NEXT: %[[Q:.*]] = quant_qdq.quantize %[[X]] <bits = 8> scale [1.000000e-01] : tensor<1x8xf32> -> tensor<1x8xi8>
// CHECK-NEXT: %[[D:.*]] = quant_qdq.dequantize %[[Q]] <bits = 8> scale [1.000000e-01] : tensor<1x8xi8> -> tensor<1x8xf32>
// CHECK-NEXT: return %[[D]] : tensor<1x8xf32>
func.func @qdq_pair(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %q = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<1x8xf32> -> tensor<1x8xi8>
  %d = quant_qdq.dequantize %q <bits = 8> scale [0.1] : tensor<1x8xi8> -> tensor<1x8xf32>
  return %d : tensor<1x8xf32>
}

// CHECK-LABEL: func.func @per_axis_asymmetric(
// CHECK-NEXT: quant_qdq.quantize
// CHECK-NEXT: quant_qdq.dequantize
// CHECK-NEXT: return
func.func @per_axis_asymmetric(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %q = quant_qdq.quantize %x <bits = 8, symmetric = false, axis = 0> scale [0.1, 0.2] zero_point [3, -3] : tensor<2x3xf32> -> tensor<2x3xi8>
  %d = quant_qdq.dequantize %q <bits = 8, symmetric = false, axis = 0> scale [0.1, 0.2] zero_point [3, -3] : tensor<2x3xi8> -> tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @uncalibrated(
// CHECK-NEXT: quant_qdq.quantize
// CHECK-NEXT: quant_qdq.dequantize
// CHECK-NEXT: return
func.func @uncalibrated(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant_qdq.quantize %x <bits = 8> : tensor<4xf32> -> tensor<4xi8>
  %d = quant_qdq.dequantize %q <bits = 8> : tensor<4xi8> -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// A Q/DQ pair in front of a convolution input and weight, as insertion
// leaves it: everything stays.
// CHECK-LABEL: func.func @conv_inputs(
// CHECK-COUNT-2: quant_qdq.quantize
// CHECK-NOT: quant_qdq.conv2d
// CHECK-COUNT-2: quant_qdq.dequantize
// CHECK-NEXT: quant_qdq.conv2d
func.func @conv_inputs(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %qx = quant_qdq.quantize %x <bits = 8> scale [0.02] : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xi8>
  %qw = quant_qdq.quantize %w <bits = 8, axis = 0> scale [0.1, 0.1, 0.1, 0.1] : tensor<4x3x3x3xf32> -> tensor<4x3x3x3xi8>
  %dx = quant_qdq.dequantize %qx <bits = 8> scale [0.02] : tensor<1x3x8x8xi8> -> tensor<1x3x8x8xf32>
  %dw = quant_qdq.dequantize %qw <bits = 8, axis = 0> scale [0.1, 0.1, 0.1, 0.1] : tensor<4x3x3x3xi8> -> tensor<4x3x3x3xf32>
  %y = quant_qdq.conv2d %dx, %dw : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// Q/DQ/Q/DQ: the inner dequantize-quantize folds, the outer pair stays.
// CHECK-LABEL: func.func @double_pair(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[Q:.*]] = quant_qdq.quantize %[[X]] <bits = 8> scale [1.000000e-01]
// CHECK-NEXT: %[[D:.*]] = quant_qdq.dequantize %[[Q]] <bits = 8> scale [1.000000e-01]
// CHECK-NEXT: return %[[D]]
func.func @double_pair(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q1 = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  %d1 = quant_qdq.dequantize %q1 <bits = 8> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  %q2 = quant_qdq.quantize %d1 <bits = 8> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  %d2 = quant_qdq.dequantize %q2 <bits = 8> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  return %d2 : tensor<4xf32>
}
