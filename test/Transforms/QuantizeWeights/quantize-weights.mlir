// RUN: qdq-opt %s --split-input-file --qdq-quantize-weights | FileCheck %s

// A per-channel int8 weight pair: the quantize and the float weight give
// way to the storage, rounded half to even (2.5 -> 2, -1.5 -> -2) and
// saturated at the narrow range (99 / 0.5 -> 127);
// the activation's pair is not a constant and stays.
// CHECK-LABEL: func @per_channel
// CHECK-NOT: arith.constant dense<{{.*}}> : tensor<2x3xf32>
// CHECK: %[[W:.*]] = arith.constant dense_resource<w_quantized> : tensor<2x3xi8>
// CHECK-NOT: quant_qdq.quantize %[[W]]
// CHECK: quant_qdq.dequantize %[[W]] <bits = 8, axis = 0> scale [1.000000e+00, 5.000000e-01]
// CHECK: quant_qdq.quantize %arg0
// CHECK: {-#
// CHECK: w_quantized: "0x01000000FE02FE017F00"
func.func @per_channel(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = arith.constant dense<[[-2.0, 2.5, -1.5], [0.5, 99.0, 0.25]]> : tensor<2x3xf32> loc("w")
  %q = quant_qdq.quantize %w <bits = 8, axis = 0> scale [1.0, 0.5] : tensor<2x3xf32> -> tensor<2x3xi8>
  %dq = quant_qdq.dequantize %q <bits = 8, axis = 0> scale [1.0, 0.5] : tensor<2x3xi8> -> tensor<2x3xf32>
  %xq = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<4x3xf32> -> tensor<4x3xi8>
  %xdq = quant_qdq.dequantize %xq <bits = 8> scale [0.1] : tensor<4x3xi8> -> tensor<4x3xf32>
  %y = quant_qdq.dense "fc" %xdq, %dq {transpose_weight} : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Left alone: an uncalibrated quantize, a 4-bit one, and one whose result
// is also read as storage by something other than a dequantize.
// CHECK-LABEL: func @kept
// CHECK-COUNT-3: quant_qdq.quantize %cst
func.func @kept() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi8>) {
  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %q0 = quant_qdq.quantize %w <bits = 8> : tensor<4xf32> -> tensor<4xi8>
  %d0 = quant_qdq.dequantize %q0 <bits = 8> : tensor<4xi8> -> tensor<4xf32>
  %q1 = quant_qdq.quantize %w <bits = 4> scale [1.0] : tensor<4xf32> -> tensor<4xi4>
  %d1 = quant_qdq.dequantize %q1 <bits = 4> scale [1.0] : tensor<4xi4> -> tensor<4xf32>
  %q2 = quant_qdq.quantize %w <bits = 8> scale [1.0] : tensor<4xf32> -> tensor<4xi8>
  return %d0, %d1, %q2 : tensor<4xf32>, tensor<4xf32>, tensor<4xi8>
}
