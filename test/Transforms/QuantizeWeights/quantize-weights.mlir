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

// Left alone: an uncalibrated quantize, and one whose result is also read
// as storage by something other than a dequantize.
// CHECK-LABEL: func @kept
// CHECK-COUNT-2: quant_qdq.quantize %cst
func.func @kept() -> (tensor<4xf32>, tensor<4xi8>) {
  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %q0 = quant_qdq.quantize %w <bits = 8> : tensor<4xf32> -> tensor<4xi8>
  %d0 = quant_qdq.dequantize %q0 <bits = 8> : tensor<4xi8> -> tensor<4xf32>
  %q2 = quant_qdq.quantize %w <bits = 8> scale [1.0] : tensor<4xf32> -> tensor<4xi8>
  return %d0, %q2 : tensor<4xf32>, tensor<4xi8>
}

// -----

// Int4 blocks: blocks of 2 along axis 1, one scale per row and block
// ([[1, 1], [1, 2]]), saturated at 7, rounded half to even; a byte per
// element in memory (packing is the ONNX writer's business).
// CHECK-LABEL: func @int4_blocks
// CHECK: %[[W:.*]] = arith.constant dense_resource<w4_quantized> : tensor<2x4xi4>
// CHECK: quant_qdq.dequantize %[[W]] <bits = 4, axis = 1, block_size = 2>
// CHECK: w4_quantized: "0x0100000001FE03070007FC00"
func.func @int4_blocks() -> tensor<2x4xf32> {
  %w = arith.constant dense<[[1.0, -2.0, 3.0, 8.0], [0.5, 7.0, -7.0, 1.0]]> : tensor<2x4xf32> loc("w4")
  %q = quant_qdq.quantize %w <bits = 4, axis = 1, block_size = 2> scale [1.0, 1.0, 1.0, 2.0] : tensor<2x4xf32> -> tensor<2x4xi4>
  %dq = quant_qdq.dequantize %q <bits = 4, axis = 1, block_size = 2> scale [1.0, 1.0, 1.0, 2.0] : tensor<2x4xi4> -> tensor<2x4xf32>
  return %dq : tensor<2x4xf32>
}

// -----

// Int16: two bytes per element, little endian (2000, -6).
// CHECK-LABEL: func @int16
// CHECK: w16_quantized: "0x02000000D007FAFF"
func.func @int16() -> tensor<2xf32> {
  %w = arith.constant dense<[1000.0, -3.0]> : tensor<2xf32> loc("w16")
  %q = quant_qdq.quantize %w <bits = 16> scale [0.5] : tensor<2xf32> -> tensor<2xi16>
  %dq = quant_qdq.dequantize %q <bits = 16> scale [0.5] : tensor<2xi16> -> tensor<2xf32>
  return %dq : tensor<2xf32>
}

// -----

// FP8: 1.0 -> 0x38, -2.5 -> 0xC2, 1000 saturates to 448 -> 0x7E, and 2^-10
// is a tie between 0 and the smallest subnormal 2^-9: to even, 0.
// CHECK-LABEL: func @fp8
// CHECK: arith.constant dense_resource<w8_quantized> : tensor<4xf8E4M3FN>
// CHECK: w8_quantized: "0x0100000038C27E00"
func.func @fp8() -> tensor<4xf32> {
  %w = arith.constant dense<[1.0, -2.5, 1000.0, 0.0009765625]> : tensor<4xf32> loc("w8")
  %q = quant_qdq.quantize %w <bits = 8, storage = e4m3fn> scale [1.0] : tensor<4xf32> -> tensor<4xf8E4M3FN>
  %dq = quant_qdq.dequantize %q <bits = 8, storage = e4m3fn> scale [1.0] : tensor<4xf8E4M3FN> -> tensor<4xf32>
  return %dq : tensor<4xf32>
}

// -----

// A weight that only float kernels read (layers ONNX Runtime runs in float
// all the same, marked by insert-qdq target=onnxruntime) becomes the float
// constant of its dequantized values: -2, 2, -2 (1.0 per step) and 0.5, 63.5
// (saturated at 127 steps of 0.5), 0 (0.25 rounds half to even to 0 steps).
// A weight that another layer reads as an integer weight stays int8.
// CHECK-LABEL: func @float_kernel
// CHECK-NOT: quant_qdq.quantize %cst
// CHECK: %[[W:.*]] = arith.constant dense_resource<w_dequantized> : tensor<2x3xf32>
// CHECK: quant_qdq.dense "fc" %{{.*}}, %[[W]] {quant_qdq.float_kernel, transpose_weight}
// CHECK: %[[V:.*]] = arith.constant dense_resource<v_quantized> : tensor<2x3xi8>
// CHECK: %[[DV:.*]] = quant_qdq.dequantize %[[V]]
// CHECK: quant_qdq.dense "fc2" %{{.*}}, %[[DV]] {quant_qdq.float_kernel, transpose_weight}
// CHECK: quant_qdq.dense "fc3" %{{.*}}, %[[DV]] {transpose_weight}
// CHECK: w_dequantized: "0x04000000000000C000000040000000C00000003F00007E4200000000"
func.func @float_kernel(%x: tensor<4x3xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %w = arith.constant dense<[[-2.0, 2.5, -1.5], [0.5, 99.0, 0.25]]> : tensor<2x3xf32> loc("w")
  %q = quant_qdq.quantize %w <bits = 8, axis = 0> scale [1.0, 0.5] : tensor<2x3xf32> -> tensor<2x3xi8>
  %dq = quant_qdq.dequantize %q <bits = 8, axis = 0> scale [1.0, 0.5] : tensor<2x3xi8> -> tensor<2x3xf32>
  %y = quant_qdq.dense "fc" %x, %dq {transpose_weight, quant_qdq.float_kernel} : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
  %v = arith.constant dense<[[-2.0, 2.5, -1.5], [0.5, 99.0, 0.25]]> : tensor<2x3xf32> loc("v")
  %qv = quant_qdq.quantize %v <bits = 8, axis = 0> scale [1.0, 0.5] : tensor<2x3xf32> -> tensor<2x3xi8>
  %dv = quant_qdq.dequantize %qv <bits = 8, axis = 0> scale [1.0, 0.5] : tensor<2x3xi8> -> tensor<2x3xf32>
  %y2 = quant_qdq.dense "fc2" %x, %dv {transpose_weight, quant_qdq.float_kernel} : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
  %y3 = quant_qdq.dense "fc3" %x, %dv {transpose_weight} : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
  return %y, %y2, %y3 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// Stored as float only when the float values are the weight's own: not for
// a bf16 weight (the values would be f32), nor where a dequantize has
// parameters of its own.
// CHECK-LABEL: func @float_kernel_kept
// CHECK: arith.constant dense_resource<b_quantized> : tensor<2xi8>
// CHECK: arith.constant dense_resource<s_quantized> : tensor<2xi8>
func.func @float_kernel_kept(%x: tensor<4x2xbf16>, %y: tensor<4x2xf32>) -> (tensor<4x2xbf16>, tensor<4x2xf32>) {
  %b = arith.constant dense<[1.0, -2.0]> : tensor<2xbf16> loc("b")
  %qb = quant_qdq.quantize %b <bits = 8> scale [1.0] : tensor<2xbf16> -> tensor<2xi8>
  %db = quant_qdq.dequantize %qb <bits = 8> scale [1.0] : tensor<2xi8> -> tensor<2xbf16>
  %r = quant_qdq.multiply "mb" %x, %db {quant_qdq.float_kernel} : (tensor<4x2xbf16>, tensor<2xbf16>) -> tensor<4x2xbf16>
  %w = arith.constant dense<[1.0, -2.0]> : tensor<2xf32> loc("s")
  %qs = quant_qdq.quantize %w <bits = 8> scale [1.0] : tensor<2xf32> -> tensor<2xi8>
  %ds = quant_qdq.dequantize %qs <bits = 8> scale [2.0] : tensor<2xi8> -> tensor<2xf32>
  %t = quant_qdq.multiply "ms" %y, %ds {quant_qdq.float_kernel} : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  return %r, %t : tensor<4x2xbf16>, tensor<4x2xf32>
}
