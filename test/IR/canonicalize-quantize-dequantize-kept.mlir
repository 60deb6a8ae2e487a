// RUN: qdq-opt %s -canonicalize | FileCheck %s

// quantize(dequantize(q)) is not folded when the two ops quantize
// differently, or when their scales are not known yet.

// CHECK-LABEL: func.func @different_scales(
// CHECK-SAME: %[[Q:.*]]: tensor<4xi8>)
// CHECK-NEXT: %[[X:.*]] = quant_qdq.dequantize %[[Q]] <bits = 8> scale [1.000000e-01] : tensor<4xi8> -> tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = quant_qdq.quantize %[[X]] <bits = 8> scale [2.000000e-01] : tensor<4xf32> -> tensor<4xi8>
// CHECK-NEXT: return %[[R]]
func.func @different_scales(%q: tensor<4xi8>) -> tensor<4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  %r = quant_qdq.quantize %x <bits = 8> scale [0.2] : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// CHECK-LABEL: func.func @different_zero_points(
// CHECK: quant_qdq.dequantize
// CHECK-NEXT: quant_qdq.quantize
func.func @different_zero_points(%q: tensor<4xi8>) -> tensor<4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8, symmetric = false> scale [0.1] zero_point [1] : tensor<4xi8> -> tensor<4xf32>
  %r = quant_qdq.quantize %x <bits = 8, symmetric = false> scale [0.1] zero_point [2] : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// An absent zero point means 0, but only identical attributes fold.
// CHECK-LABEL: func.func @absent_and_zero_zero_point(
// CHECK: quant_qdq.dequantize
// CHECK-NEXT: quant_qdq.quantize
func.func @absent_and_zero_zero_point(%q: tensor<4xi8>) -> tensor<4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  %r = quant_qdq.quantize %x <bits = 8> scale [0.1] zero_point [0] : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// Same scale, different quantizer (narrow range clamps -128).
// CHECK-LABEL: func.func @different_quantizers(
// CHECK: quant_qdq.dequantize %{{.*}} <bits = 8, narrow_range = false> scale
// CHECK-NEXT: quant_qdq.quantize %{{.*}} <bits = 8> scale
func.func @different_quantizers(%q: tensor<4xi8>) -> tensor<4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8, narrow_range = false> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  %r = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// Per tensor against per axis with equal values.
// CHECK-LABEL: func.func @per_tensor_and_per_axis(
// CHECK: quant_qdq.dequantize
// CHECK-NEXT: quant_qdq.quantize
func.func @per_tensor_and_per_axis(%q: tensor<1x4xi8>) -> tensor<1x4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8, axis = 0> scale [0.1] : tensor<1x4xi8> -> tensor<1x4xf32>
  %r = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<1x4xf32> -> tensor<1x4xi8>
  return %r : tensor<1x4xi8>
}

// Two uncalibrated ops may get different scales later.
// CHECK-LABEL: func.func @uncalibrated(
// CHECK-SAME: %[[Q:.*]]: tensor<4xi8>)
// CHECK-NEXT: %[[X:.*]] = quant_qdq.dequantize %[[Q]] <bits = 8> : tensor<4xi8> -> tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = quant_qdq.quantize %[[X]] <bits = 8> : tensor<4xf32> -> tensor<4xi8>
// CHECK-NEXT: return %[[R]]
func.func @uncalibrated(%q: tensor<4xi8>) -> tensor<4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8> : tensor<4xi8> -> tensor<4xf32>
  %r = quant_qdq.quantize %x <bits = 8> : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// One calibrated, one not.
// CHECK-LABEL: func.func @half_calibrated(
// CHECK: quant_qdq.dequantize %{{.*}} <bits = 8> scale [1.000000e-01]
// CHECK-NEXT: quant_qdq.quantize %{{.*}} <bits = 8> :
func.func @half_calibrated(%q: tensor<4xi8>) -> tensor<4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  %r = quant_qdq.quantize %x <bits = 8> : tensor<4xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// A requantization to a more static type keeps the op: q's type differs.
// CHECK-LABEL: func.func @type_change(
// CHECK: quant_qdq.dequantize
// CHECK-NEXT: quant_qdq.quantize %{{.*}} : tensor<?xf32> -> tensor<4xi8>
func.func @type_change(%q: tensor<?xi8>) -> tensor<4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8> scale [0.1] : tensor<?xi8> -> tensor<?xf32>
  %r = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<?xf32> -> tensor<4xi8>
  return %r : tensor<4xi8>
}
