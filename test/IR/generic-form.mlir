// RUN: qdq-opt %s | FileCheck %s
// RUN: qdq-opt %s | qdq-opt --mlir-print-op-generic | qdq-opt | FileCheck %s

// Ops written in the generic form, with inherent attributes as properties
// or (older writers) in the attribute dictionary, print in custom form.

// CHECK-LABEL: func.func @properties(
func.func @properties(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK-NEXT: %0 = quant_qdq.conv2d "c" %arg0, %arg1 {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  %0 = "quant_qdq.conv2d"(%x, %w) <{dilations = array<i64: 1, 1>, groups = 1 : i64, layout = #quant_qdq<layout nchw>, name = "c", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  // CHECK-NEXT: %1 = quant_qdq.activation hard_sigmoid %0 {alpha = 2.000000e-01 : f32} : tensor<1x4x4x4xf32>
  %1 = "quant_qdq.activation"(%0) <{kind = #quant_qdq<activation hard_sigmoid>, alpha = 0.2 : f32}> : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  // CHECK-NEXT: %2 = quant_qdq.fake_quant %1 <bits = 8, axis = 1> scale [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00] : tensor<1x4x4x4xf32>
  %2 = "quant_qdq.fake_quant"(%1) <{quantizer = #quant_qdq.quantizer<bits = 8, axis = 1>, scale = array<f32: 1.0, 2.0, 3.0, 4.0>}> : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  // CHECK-NEXT: return %2 : tensor<1x4x4x4xf32>
  return %2 : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @attribute_dictionary(
func.func @attribute_dictionary(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK-NEXT: %0 = quant_qdq.max_pool2d %arg0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %0 = "quant_qdq.max_pool2d"(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  // CHECK-NEXT: %1 = quant_qdq.pad %0 {mode = #quant_qdq<pad_mode reflect>, pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %1 = "quant_qdq.pad"(%0) {mode = #quant_qdq<pad_mode reflect>, pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  // CHECK-NEXT: return %1 : tensor<1x4x4x4xf32>
  return %1 : tensor<1x4x4x4xf32>
}

// Discardable attributes survive next to the inherent ones.
// CHECK-LABEL: func.func @discardable(
func.func @discardable(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK-NEXT: %0 = quant_qdq.activation relu "r" %arg0 {my.tag = 3 : i32} : tensor<2x8xf32>
  %0 = "quant_qdq.activation"(%x) <{kind = #quant_qdq<activation relu>, name = "r"}> {my.tag = 3 : i32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK-NEXT: %1 = quant_qdq.quantize %0 <bits = 8> scale [5.000000e-01] {my.note = "calibrated"} : tensor<2x8xf32> -> tensor<2x8xi8>
  %1 = "quant_qdq.quantize"(%0) <{quantizer = #quant_qdq.quantizer<bits = 8>, scale = array<f32: 0.5>}> {my.note = "calibrated"} : (tensor<2x8xf32>) -> tensor<2x8xi8>
  // CHECK-NEXT: %2 = quant_qdq.dequantize %1 <bits = 8> scale [5.000000e-01] : tensor<2x8xi8> -> tensor<2x8xf32>
  %2 = "quant_qdq.dequantize"(%1) <{quantizer = #quant_qdq.quantizer<bits = 8>, scale = array<f32: 0.5>}> : (tensor<2x8xi8>) -> tensor<2x8xf32>
  // CHECK-NEXT: return %2 : tensor<2x8xf32>
  return %2 : tensor<2x8xf32>
}
