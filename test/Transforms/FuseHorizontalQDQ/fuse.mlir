// Pairs that quantize one tensor alike merge into the first; pairs that
// differ in quantizer or scale, or live in another block, stay.
// RUN: qdq-opt %s --qdq-fuse-horizontal --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @same
// CHECK: %[[Q:.*]] = quant_qdq.quantize %arg0 <bits = 8> scale [1.000000e-01]
// CHECK-NEXT: %[[DQ:.*]] = quant_qdq.dequantize %[[Q]]
// CHECK-NOT: quant_qdq.quantize
// CHECK: return %[[DQ]], %[[DQ]]
func.func @same(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %q1 = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  %d1 = quant_qdq.dequantize %q1 <bits = 8> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  %q2 = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  %d2 = quant_qdq.dequantize %q2 <bits = 8> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  return %d1, %d2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @different
// CHECK-COUNT-3: quant_qdq.quantize %arg0
func.func @different(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %q1 = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  %d1 = quant_qdq.dequantize %q1 <bits = 8> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  %q2 = quant_qdq.quantize %x <bits = 8> scale [0.2] : tensor<4xf32> -> tensor<4xi8>
  %d2 = quant_qdq.dequantize %q2 <bits = 8> scale [0.2] : tensor<4xi8> -> tensor<4xf32>
  %q3 = quant_qdq.quantize %x <bits = 8, narrow_range = false> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  %d3 = quant_qdq.dequantize %q3 <bits = 8, narrow_range = false> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  return %d1, %d2, %d3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The same quantize feeding two different dequantizes keeps both of them.
// CHECK-LABEL: func.func @shared_quantize
// CHECK: %[[Q:.*]] = quant_qdq.quantize %arg0
// CHECK-NEXT: quant_qdq.dequantize %[[Q]] <bits = 8> scale [1.000000e-01]
// CHECK-NEXT: quant_qdq.dequantize %[[Q]] <bits = 8> scale [2.000000e-01]
func.func @shared_quantize(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %q = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  %d1 = quant_qdq.dequantize %q <bits = 8> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  %d2 = quant_qdq.dequantize %q <bits = 8> scale [0.2] : tensor<4xi8> -> tensor<4xf32>
  return %d1, %d2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Ops in different blocks are not merged (neither dominates the other).
// CHECK-LABEL: func.func @blocks
// CHECK-COUNT-2: quant_qdq.quantize %arg0
func.func @blocks(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  cf.cond_br %c, ^a, ^b
^a:
  %q1 = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  %d1 = quant_qdq.dequantize %q1 <bits = 8> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  return %d1 : tensor<4xf32>
^b:
  %q2 = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<4xf32> -> tensor<4xi8>
  %d2 = quant_qdq.dequantize %q2 <bits = 8> scale [0.1] : tensor<4xi8> -> tensor<4xf32>
  return %d2 : tensor<4xf32>
}
