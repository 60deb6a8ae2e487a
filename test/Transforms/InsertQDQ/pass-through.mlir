// A pair every consumer of a pass-through layer asks for moves above it:
// flatten, reshape and max pooling run in INT8. It stays put when another
// consumer wants the float value, when the quantizer is per channel, or with
// propagate=false.
// RUN: qdq-opt %s --insert-qdq --split-input-file | FileCheck %s
// RUN: qdq-opt %s --insert-qdq="propagate=false" --split-input-file | FileCheck %s --check-prefix=STAY

// CHECK-LABEL: func.func @flatten_dense
// CHECK: %[[P:.*]] = quant_qdq.global_avg_pool2d
// CHECK-NEXT: %[[Q:.*]] = quant_qdq.quantize %[[P]]
// CHECK-NEXT: %[[DQ:.*]] = quant_qdq.dequantize %[[Q]]
// CHECK-NEXT: %[[F:.*]] = quant_qdq.flatten "flatten" %[[DQ]]
// CHECK-NEXT: %[[R:.*]] = quant_qdq.reshape "reshape" %[[F]]
// CHECK-NEXT: quant_qdq.dense "fc" %[[R]],
// STAY-LABEL: func.func @flatten_dense
// STAY: %[[R:.*]] = quant_qdq.reshape "reshape"
// STAY-NEXT: %[[Q:.*]] = quant_qdq.quantize %[[R]]
// STAY-NEXT: %[[DQ:.*]] = quant_qdq.dequantize %[[Q]]
// STAY-NEXT: quant_qdq.dense "fc" %[[DQ]],
func.func @flatten_dense(%x: tensor<1x8x4x4xf32>, %w: tensor<8x10xf32>) -> tensor<1x10xf32> {
  %p = quant_qdq.global_avg_pool2d "gap" %x : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %f = quant_qdq.flatten "flatten" %p : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
  %r = quant_qdq.reshape "reshape" %f {shape = array<i64: 1, 8>} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %y = quant_qdq.dense "fc" %r, %w : (tensor<1x8xf32>, tensor<8x10xf32>) -> tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}

// -----

// The flatten output is also returned in float: the pair stays below it.
// CHECK-LABEL: func.func @float_consumer
// CHECK: %[[F:.*]] = quant_qdq.flatten "flatten" %arg0
// CHECK-NEXT: %[[Q:.*]] = quant_qdq.quantize %[[F]]
// CHECK-NEXT: %[[DQ:.*]] = quant_qdq.dequantize %[[Q]]
// CHECK-NEXT: quant_qdq.dense "fc" %[[DQ]],
func.func @float_consumer(%x: tensor<1x8x1x1xf32>, %w: tensor<8x10xf32>) -> (tensor<1x10xf32>, tensor<1x8xf32>) {
  %f = quant_qdq.flatten "flatten" %x : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
  %y = quant_qdq.dense "fc" %f, %w : (tensor<1x8xf32>, tensor<8x10xf32>) -> tensor<1x10xf32>
  return %y, %f : tensor<1x10xf32>, tensor<1x8xf32>
}

// -----

// A transposed weight keeps its per-channel pair below the transpose.
// CHECK-LABEL: func.func @weight_transpose
// CHECK: %[[T:.*]] = quant_qdq.transpose "wt" %arg1
// CHECK-NEXT: %[[Q:.*]] = quant_qdq.quantize %[[T]] <bits = 8, axis = 1>
func.func @weight_transpose(%x: tensor<1x8xf32>, %w: tensor<10x8xf32>) -> tensor<1x10xf32> {
  %t = quant_qdq.transpose "wt" %w {perm = array<i64: 1, 0>} : (tensor<10x8xf32>) -> tensor<8x10xf32>
  %y = quant_qdq.dense "fc" %x, %t : (tensor<1x8xf32>, tensor<8x10xf32>) -> tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}

// -----

// A zero pad is pass-through: the conv's pair moves above it. A pad that
// fills with 1.0, a value that need not lie on the grid, keeps it below.
// CHECK-LABEL: func.func @pad_fill
// CHECK: %[[Q0:.*]] = quant_qdq.quantize %arg0
// CHECK-NEXT: %[[DQ0:.*]] = quant_qdq.dequantize %[[Q0]]
// CHECK: %[[Z:.*]] = quant_qdq.pad "zero" %[[DQ0]]
// CHECK: quant_qdq.conv2d "c0" %[[Z]],
// CHECK: %[[O:.*]] = quant_qdq.pad "ones" %arg0
// CHECK-NEXT: %[[Q1:.*]] = quant_qdq.quantize %[[O]]
// CHECK-NEXT: %[[DQ1:.*]] = quant_qdq.dequantize %[[Q1]]
// CHECK: quant_qdq.conv2d "c1" %[[DQ1]],
func.func @pad_fill(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %z = quant_qdq.pad "zero" %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x10x10xf32>
  %c0 = quant_qdq.conv2d "c0" %z, %w : (tensor<1x4x10x10xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %o = quant_qdq.pad "ones" %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 1.0 : f32} : (tensor<1x4x8x8xf32>) -> tensor<1x4x10x10xf32>
  %c1 = quant_qdq.conv2d "c1" %o, %w : (tensor<1x4x10x10xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %c0, %c1 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}
