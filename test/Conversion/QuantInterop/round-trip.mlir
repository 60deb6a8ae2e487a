// RUN: qdq-opt %s --split-input-file --qdq-to-quant | FileCheck %s --check-prefix=QUANT
// RUN: qdq-opt %s --split-input-file --qdq-to-quant --quant-to-qdq | FileCheck %s --check-prefix=BACK
// Upstream's own lowering takes the casts (truncating where quant_qdq
// rounds half to even: docs/Quantizers.md).
// RUN: qdq-opt %s --split-input-file --qdq-to-quant --lower-quant-ops | FileCheck %s --check-prefix=LOWERED --implicit-check-not=quant.qcast --implicit-check-not=quant.dcast
// LOWERED-COUNT-3: arith.fpto{{s|u}}i

// A Q/DQ pair per tensor, narrow range (the default): qcast then dcast, the
// storage casts between them cancelled; and back, the same pair. Scales are
// f32 here, doubles there: 0.1 is written as the f32 value it is.
// QUANT-LABEL: func.func @pair
// QUANT-NEXT: %[[Q:.*]] = quant.qcast %arg0 : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8<-127:127>:f32, 5.000000e-01>>
// QUANT-NEXT: %[[D:.*]] = quant.dcast %[[Q]] : tensor<2x4x!quant.uniform<i8<-127:127>:f32, 5.000000e-01>> to tensor<2x4xf32>
// QUANT-NEXT: return %[[D]]
// BACK-LABEL: func.func @pair
// BACK-NEXT: %[[Q:.*]] = quant_qdq.quantize %arg0 <bits = 8> scale [5.000000e-01] : tensor<2x4xf32> -> tensor<2x4xi8>
// BACK-NEXT: %[[D:.*]] = quant_qdq.dequantize %[[Q]] <bits = 8> scale [5.000000e-01] : tensor<2x4xi8> -> tensor<2x4xf32>
// BACK-NEXT: return %[[D]]
func.func @pair(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %q = quant_qdq.quantize %x <bits = 8> scale [0.5] : tensor<2x4xf32> -> tensor<2x4xi8>
  %d = quant_qdq.dequantize %q <bits = 8> scale [0.5] : tensor<2x4xi8> -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}

// -----

// Per axis, unsigned, full range, with zero points: a per-axis type.
// QUANT-LABEL: func.func @per_axis
// QUANT: quant.qcast %arg0 : tensor<3x2xf32> to tensor<3x2x!quant.uniform<u8:f32:0, {0.10000000149011612:128,0.20000000298023224:120,0.30000001192092896:7}>>
// BACK-LABEL: func.func @per_axis
// BACK: quant_qdq.quantize %arg0 <bits = 8, is_signed = false, narrow_range = false, symmetric = false, axis = 0> scale [1.000000e-01, 2.000000e-01, 3.000000e-01] zero_point [128, 120, 7]
// BACK: quant_qdq.dequantize %{{.*}} <bits = 8, is_signed = false, narrow_range = false, symmetric = false, axis = 0> scale [1.000000e-01, 2.000000e-01, 3.000000e-01] zero_point [128, 120, 7]
func.func @per_axis(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %q = quant_qdq.quantize %x <bits = 8, is_signed = false, narrow_range = false, symmetric = false, axis = 0> scale [0.1, 0.2, 0.3] zero_point [128, 120, 7] : tensor<3x2xf32> -> tensor<3x2xi8>
  %d = quant_qdq.dequantize %q <bits = 8, is_signed = false, narrow_range = false, symmetric = false, axis = 0> scale [0.1, 0.2, 0.3] zero_point [128, 120, 7] : tensor<3x2xi8> -> tensor<3x2xf32>
  return %d : tensor<3x2xf32>
}

// -----

// A weight stored quantized (a lone dequantize of int8 constants) keeps its
// storage cast; fake_quant is dcast(qcast(x)), and comes back as a
// quantize/dequantize pair.
// QUANT-LABEL: func.func @weight_and_fake
// QUANT: %[[W:.*]] = quant.scast %{{.*}} : tensor<4xi8> to tensor<4x!quant.uniform<i8<-127:127>:f32, 2.500000e-01>>
// QUANT: quant.dcast %[[W]]
// QUANT: %[[F:.*]] = quant.qcast %arg0 : tensor<4xf16> to tensor<4x!quant.uniform<i4<-7:7>:f16, 1.000000e+00>>
// QUANT: quant.dcast %[[F]] : {{.*}} to tensor<4xf16>
// BACK-LABEL: func.func @weight_and_fake
// BACK: quant_qdq.dequantize %{{.*}} <bits = 8> scale [2.500000e-01] : tensor<4xi8> -> tensor<4xf32>
// BACK: quant_qdq.quantize %arg0 <bits = 4> scale [1.000000e+00] : tensor<4xf16> -> tensor<4xi4>
// BACK: quant_qdq.dequantize %{{.*}} <bits = 4> scale [1.000000e+00] : tensor<4xi4> -> tensor<4xf16>
func.func @weight_and_fake(%x: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf16>) {
  %c = arith.constant dense<[1, -2, 3, 127]> : tensor<4xi8>
  %w = quant_qdq.dequantize %c <bits = 8> scale [0.25] : tensor<4xi8> -> tensor<4xf32>
  %f = quant_qdq.fake_quant %x <bits = 4> scale [1.0] : tensor<4xf16>
  return %w, %f : tensor<4xf32>, tensor<4xf16>
}

// -----

// Layers and constants are left as they are; only the Q/DQ ops change.
// QUANT-LABEL: func.func @layers_untouched
// QUANT: quant.qcast
// QUANT: quant.dcast
// QUANT: quant_qdq.dense "fc"
// BACK-LABEL: func.func @layers_untouched
// BACK: quant_qdq.dense "fc"
func.func @layers_untouched(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<0.5> : tensor<4x3xf32>
  %q = quant_qdq.quantize %x <bits = 8> scale [0.5] : tensor<2x4xf32> -> tensor<2x4xi8>
  %d = quant_qdq.dequantize %q <bits = 8> scale [0.5] : tensor<2x4xi8> -> tensor<2x4xf32>
  %y = quant_qdq.dense "fc" %d, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
