// RUN: qdq-opt %s -canonicalize | FileCheck %s

// Layers are pure: unused ones are erased, used ones stay, and the layers
// that compute something are never folded into their inputs.

// CHECK-LABEL: func.func @dead_layers(
// CHECK-SAME: %[[X:.*]]: tensor<1x4x8x8xf32>
// CHECK-NEXT: return %[[X]]
func.func @dead_layers(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %0 = quant_qdq.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %1 = quant_qdq.activation relu %0 : tensor<1x4x8x8xf32>
  %2 = quant_qdq.fake_quant %1 <bits = 8> scale [0.1] : tensor<1x4x8x8xf32>
  %3 = quant_qdq.quantize %2 <bits = 8> scale [0.1] : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xi8>
  return %x : tensor<1x4x8x8xf32>
}

// Identity-like layers keep their place: a linear activation, dropout,
// 1x1 pooling and a softmax are not folded away.
// CHECK-LABEL: func.func @identity_like(
// CHECK-NEXT: quant_qdq.activation linear
// CHECK-NEXT: quant_qdq.dropout
// CHECK-NEXT: quant_qdq.max_pool2d
// CHECK-NEXT: quant_qdq.avg_pool2d
// CHECK-NEXT: quant_qdq.softmax
// CHECK-NEXT: return
func.func @identity_like(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %0 = quant_qdq.activation linear %x : tensor<1x4x8x8xf32>
  %1 = quant_qdq.dropout %0 {rate = 0.0 : f32} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = quant_qdq.max_pool2d %1 {kernel_shape = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %3 = quant_qdq.avg_pool2d %2 {kernel_shape = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %4 = quant_qdq.softmax %3 {axis = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %4 : tensor<1x4x8x8xf32>
}

// Generic layers may have effects nobody modelled: an unused one stays.
// CHECK-LABEL: func.func @generic_kept(
// CHECK-NEXT: quant_qdq.generic "Print"
// CHECK-NEXT: quant_qdq.generic "Unused"
// CHECK-NEXT: return
func.func @generic_kept(%x: tensor<4xf32>) {
  quant_qdq.generic "Print" %x : (tensor<4xf32>) -> ()
  %0 = quant_qdq.generic "Unused" %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}
