// RUN: qdq-opt %s --split-input-file --convert-onnx-to-quant-qdq | FileCheck %s

// An int8 pair with a per-tensor scale: symmetric, full range; the
// storage is signless i8.
// CHECK-LABEL: func @per_tensor
func.func @per_tensor(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %scale = arith.constant dense<0.5> : tensor<f32>
  %zp = arith.constant dense<0> : tensor<si8>
  // CHECK: %[[Q:.*]] = quant_qdq.quantize %{{.*}} <bits = 8, narrow_range = false> scale [5.000000e-01] : tensor<1x4xf32> -> tensor<1x4xi8>
  // CHECK: quant_qdq.dequantize %[[Q]] <bits = 8, narrow_range = false> scale [5.000000e-01] : tensor<1x4xi8> -> tensor<1x4xf32>
  %q = quant_qdq.generic "QuantizeLinear" %x, %scale, %zp : (tensor<1x4xf32>, tensor<f32>, tensor<si8>) -> tensor<1x4xsi8>
  %dq = quant_qdq.generic "DequantizeLinear" %q, %scale, %zp : (tensor<1x4xsi8>, tensor<f32>, tensor<si8>) -> tensor<1x4xf32>
  return %dq : tensor<1x4xf32>
}

// -----

// Without a zero point the storage is uint8: an unsigned, asymmetric
// quantizer. A per-axis uint8 weight in an initializer is reinterpreted as
// i8 (the same bytes).
// CHECK-LABEL: func @unsigned_per_axis
func.func @unsigned_per_axis(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %scale = arith.constant dense<0.25> : tensor<f32>
  %scales = arith.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %zps = arith.constant dense<[128, 3]> : tensor<2xui8>
  %w = arith.constant dense<[[1, 2, 3], [4, 5, 200]]> : tensor<2x3xui8>
  // CHECK: quant_qdq.quantize %{{.*}} <bits = 8, is_signed = false, narrow_range = false, symmetric = false> scale [2.500000e-01] : tensor<2x3xf32> -> tensor<2x3xi8>
  %q = quant_qdq.generic "QuantizeLinear" %x, %scale : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xui8>
  %dq = quant_qdq.generic "DequantizeLinear" %q, %scale : (tensor<2x3xui8>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK: %[[W:.*]] = arith.constant dense<{{\[\[}}1, 2, 3], [4, 5, -56]]> : tensor<2x3xi8>
  // CHECK: quant_qdq.dequantize %[[W]] <bits = 8, is_signed = false, narrow_range = false, symmetric = false, axis = 0> scale [5.000000e-01, 2.500000e-01] zero_point [128, 3] : tensor<2x3xi8> -> tensor<2x3xf32>
  %wdq = quant_qdq.generic "DequantizeLinear" %w, %scales, %zps {layer_attributes = {axis = 0 : i64}} : (tensor<2x3xui8>, tensor<2xf32>, tensor<2xui8>) -> tensor<2x3xf32>
  return %dq, %wdq : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Scales that are not constant, not positive or not f32 stay generic.
// CHECK-LABEL: func @kept
func.func @kept(%x: tensor<4xf32>, %s: tensor<f32>) -> (tensor<4xui8>, tensor<4xui8>) {
  %zero = arith.constant dense<0.0> : tensor<f32>
  // CHECK: quant_qdq.generic "QuantizeLinear" "dynamic"
  %0 = quant_qdq.generic "QuantizeLinear" "dynamic" %x, %s : (tensor<4xf32>, tensor<f32>) -> tensor<4xui8>
  // CHECK: quant_qdq.generic "QuantizeLinear" "zero"
  %1 = quant_qdq.generic "QuantizeLinear" "zero" %x, %zero : (tensor<4xf32>, tensor<f32>) -> tensor<4xui8>
  return %0, %1 : tensor<4xui8>, tensor<4xui8>
}
