// RUN: qdq-opt %s -canonicalize | FileCheck %s

// quantize(dequantize(q)) with the same, known parameters gives q back.

// CHECK-LABEL: func.func @per_tensor(
// CHECK-SAME: %[[Q:.*]]: tensor<4xi8>)
// CHECK-NEXT: return %[[Q]] : tensor<4xi8>
func.func @per_tensor(%q: tensor<4xi8>) -> tensor<4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8, narrow_range = false> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  %r = quant_qdq.quantize %x <bits = 8, narrow_range = false> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// With narrow_range, an arbitrary q of -128 would come back as -127: the
// pair folds only when q comes from a quantizer that cannot produce -128.
// CHECK-LABEL: func.func @narrow_from_argument(
// CHECK-NEXT: quant_qdq.dequantize
// CHECK-NEXT: quant_qdq.quantize
func.func @narrow_from_argument(%q: tensor<4xi8>) -> tensor<4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  %r = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// CHECK-LABEL: func.func @narrow_from_quantize(
// CHECK-NEXT: %[[Q:.*]] = quant_qdq.quantize %arg0 <bits = 8> scale [2.000000e-01]
// CHECK-NEXT: return %[[Q]] : tensor<4xi8>
func.func @narrow_from_quantize(%f: tensor<4xf32>) -> tensor<4xi8> {
  %q = quant_qdq.quantize %f <bits = 8> scale [0.2] : tensor<4xf32> -> tensor<4xi8>
  %x = quant_qdq.dequantize %q <bits = 8> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  %r = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// CHECK-LABEL: func.func @per_axis_asymmetric(
// CHECK-SAME: %[[Q:.*]]: tensor<2x3xi4>)
// CHECK-NEXT: return %[[Q]] : tensor<2x3xi4>
func.func @per_axis_asymmetric(%q: tensor<2x3xi4>) -> tensor<2x3xi4> {
  %x = quant_qdq.dequantize %q <bits = 4, narrow_range = false, symmetric = false, axis = 1> scale [0.5, 0.25, 0.125] zero_point [1, -2, 3] : tensor<2x3xi4> -> tensor<2x3xf16>
  %r = quant_qdq.quantize %x <bits = 4, narrow_range = false, symmetric = false, axis = 1> scale [0.5, 0.25, 0.125] zero_point [1, -2, 3] : tensor<2x3xf16> -> tensor<2x3xi4>
  return %r : tensor<2x3xi4>
}

// The dequantize stays while another user needs it.
// CHECK-LABEL: func.func @dequantize_kept_for_other_user(
// CHECK-SAME: %[[Q:.*]]: tensor<4xi8>)
// CHECK-NEXT: %[[X:.*]] = quant_qdq.dequantize %[[Q]] <bits = 8, narrow_range = false> scale [1.000000e-01] : tensor<4xi8> -> tensor<4xf32>
// CHECK-NEXT: return %[[Q]], %[[X]] : tensor<4xi8>, tensor<4xf32>
func.func @dequantize_kept_for_other_user(%q: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xf32>) {
  %x = quant_qdq.dequantize %q <bits = 8, narrow_range = false> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  %r = quant_qdq.quantize %x <bits = 8, narrow_range = false> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  return %r, %x : tensor<4xi8>, tensor<4xf32>
}

// Requantizing through a layer is not a round trip.
// CHECK-LABEL: func.func @through_a_layer(
// CHECK: quant_qdq.dequantize
// CHECK-NEXT: quant_qdq.activation relu
// CHECK-NEXT: quant_qdq.quantize
func.func @through_a_layer(%q: tensor<4xi8>) -> tensor<4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8, narrow_range = false> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  %y = quant_qdq.activation relu %x : tensor<4xf32>
  %r = quant_qdq.quantize %y <bits = 8, narrow_range = false> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}
