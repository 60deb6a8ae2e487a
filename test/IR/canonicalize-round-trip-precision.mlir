// RUN: qdq-opt %s -canonicalize | FileCheck %s

// quantize(dequantize(q)) folds to q, and fake_quant(fake_quant(x)) to one
// fake_quant, only when the float type in between holds every dequantized
// value (q - zero_point) * scale closely enough to round back to q: a
// significand of at least bits + 1 bits, and no product that overflows or
// falls below the normal range.

// bf16 has an 8-bit significand: 8-bit unsigned values do not survive
// (255 * 0.77 = 196.35 is stored as 196, which quantizes back to 254).
// CHECK-LABEL: func.func @uint8_through_bf16(
// CHECK-NEXT: quant_qdq.dequantize
// CHECK-NEXT: quant_qdq.quantize
// CHECK-NEXT: return
func.func @uint8_through_bf16(%q: tensor<4xi8>) -> tensor<4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8, narrow_range = false, is_signed = false, symmetric = false> scale [0.77] zero_point [0] : tensor<4xi8> -> tensor<4xbf16>
  %r = quant_qdq.quantize %x <bits = 8, narrow_range = false, is_signed = false, symmetric = false> scale [0.77] zero_point [0] : tensor<4xbf16> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// 7-bit storage fits bf16.
// CHECK-LABEL: func.func @int7_through_bf16(
// CHECK-SAME: %[[Q:.*]]: tensor<4xi7>)
// CHECK-NEXT: return %[[Q]]
func.func @int7_through_bf16(%q: tensor<4xi7>) -> tensor<4xi7> {
  %x = quant_qdq.dequantize %q <bits = 7, narrow_range = false> scale [0.77] : tensor<4xi7> -> tensor<4xbf16>
  %r = quant_qdq.quantize %x <bits = 7, narrow_range = false> scale [0.77] : tensor<4xbf16> -> tensor<4xi7>
  return %r : tensor<4xi7>
}

// f16 has an 11-bit significand: 16-bit storage does not fit, 8-bit does.
// CHECK-LABEL: func.func @int16_through_f16(
// CHECK-NEXT: quant_qdq.dequantize
// CHECK-NEXT: quant_qdq.quantize
// CHECK-NEXT: return
func.func @int16_through_f16(%q: tensor<4xi16>) -> tensor<4xi16> {
  %x = quant_qdq.dequantize %q <bits = 16, narrow_range = false> scale [0.001] : tensor<4xi16> -> tensor<4xf16>
  %r = quant_qdq.quantize %x <bits = 16, narrow_range = false> scale [0.001] : tensor<4xf16> -> tensor<4xi16>
  return %r : tensor<4xi16>
}

// CHECK-LABEL: func.func @int8_through_f16(
// CHECK-SAME: %[[Q:.*]]: tensor<4xi8>)
// CHECK-NEXT: return %[[Q]]
func.func @int8_through_f16(%q: tensor<4xi8>) -> tensor<4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8, narrow_range = false> scale [0.001] : tensor<4xi8> -> tensor<4xf16>
  %r = quant_qdq.quantize %x <bits = 8, narrow_range = false> scale [0.001] : tensor<4xf16> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// 16-bit storage fits f32.
// CHECK-LABEL: func.func @int16_through_f32(
// CHECK-SAME: %[[Q:.*]]: tensor<4xi16>)
// CHECK-NEXT: return %[[Q]]
func.func @int16_through_f32(%q: tensor<4xi16>) -> tensor<4xi16> {
  %x = quant_qdq.dequantize %q <bits = 16, narrow_range = false, is_signed = false, symmetric = false> scale [0.001] zero_point [32768] : tensor<4xi16> -> tensor<4xf32>
  %r = quant_qdq.quantize %x <bits = 16, narrow_range = false, is_signed = false, symmetric = false> scale [0.001] zero_point [32768] : tensor<4xf32> -> tensor<4xi16>
  return %r : tensor<4xi16>
}

// A weight scale below f16's normal range (6.1e-5): small products lose
// their precision as subnormals.
// CHECK-LABEL: func.func @subnormal_scale_in_f16(
// CHECK-NEXT: quant_qdq.dequantize
// CHECK-NEXT: quant_qdq.quantize
// CHECK-NEXT: return
func.func @subnormal_scale_in_f16(%q: tensor<4xi8>) -> tensor<4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8, narrow_range = false> scale [3.0e-08] : tensor<4xi8> -> tensor<4xf16>
  %r = quant_qdq.quantize %x <bits = 8, narrow_range = false> scale [3.0e-08] : tensor<4xf16> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// 127 * 1000 overflows f16 (largest 65504).
// CHECK-LABEL: func.func @overflowing_scale_in_f16(
// CHECK-NEXT: quant_qdq.dequantize
// CHECK-NEXT: quant_qdq.quantize
// CHECK-NEXT: return
func.func @overflowing_scale_in_f16(%q: tensor<4xi8>) -> tensor<4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8, narrow_range = false> scale [1000.0] : tensor<4xi8> -> tensor<4xf16>
  %r = quant_qdq.quantize %x <bits = 8, narrow_range = false> scale [1000.0] : tensor<4xf16> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// One bad scale among per-axis scales is enough to keep the pair.
// CHECK-LABEL: func.func @one_bad_channel(
// CHECK-NEXT: quant_qdq.dequantize
// CHECK-NEXT: quant_qdq.quantize
// CHECK-NEXT: return
func.func @one_bad_channel(%q: tensor<2x4xi8>) -> tensor<2x4xi8> {
  %x = quant_qdq.dequantize %q <bits = 8, narrow_range = false, axis = 0> scale [0.01, 1000.0] : tensor<2x4xi8> -> tensor<2x4xf16>
  %r = quant_qdq.quantize %x <bits = 8, narrow_range = false, axis = 0> scale [0.01, 1000.0] : tensor<2x4xf16> -> tensor<2x4xi8>
  return %r : tensor<2x4xi8>
}

// The same rules for fake_quant idempotence.
// CHECK-LABEL: func.func @fake_quant_uint8_bf16(
// CHECK-NEXT: quant_qdq.fake_quant
// CHECK-NEXT: quant_qdq.fake_quant
// CHECK-NEXT: return
func.func @fake_quant_uint8_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = quant_qdq.fake_quant %x <bits = 8, narrow_range = false, is_signed = false> scale [0.77] : tensor<4xbf16>
  %1 = quant_qdq.fake_quant %0 <bits = 8, narrow_range = false, is_signed = false> scale [0.77] : tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// CHECK-LABEL: func.func @fake_quant_int4_bf16(
// CHECK-SAME: %[[X:.*]]: tensor<4xbf16>)
// CHECK-NEXT: %[[F:.*]] = quant_qdq.fake_quant %[[X]] <bits = 4, narrow_range = false> scale [7.700000e-01] : tensor<4xbf16>
// CHECK-NEXT: return %[[F]]
func.func @fake_quant_int4_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = quant_qdq.fake_quant %x <bits = 4, narrow_range = false> scale [0.77] : tensor<4xbf16>
  %1 = quant_qdq.fake_quant %0 <bits = 4, narrow_range = false> scale [0.77] : tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// Exotic float types are handled without assertions: f128 is wide enough,
// an 8-bit float (3-bit significand + 1) is not.
// CHECK-LABEL: func.func @exotic_types(
// CHECK-SAME: %[[X:.*]]: tensor<4xf128>, %[[Y:.*]]: tensor<4xf8E4M3FN>)
// CHECK-NEXT: %[[F:.*]] = quant_qdq.fake_quant %[[X]] <bits = 16, narrow_range = false> scale [1.000000e-01] : tensor<4xf128>
// CHECK-NEXT: %[[G:.*]] = quant_qdq.fake_quant %[[Y]] <bits = 8, narrow_range = false> scale [1.000000e-01] : tensor<4xf8E4M3FN>
// CHECK-NEXT: %[[H:.*]] = quant_qdq.fake_quant %[[G]] <bits = 8, narrow_range = false> scale [1.000000e-01] : tensor<4xf8E4M3FN>
// CHECK-NEXT: return %[[F]], %[[H]]
func.func @exotic_types(%x: tensor<4xf128>, %y: tensor<4xf8E4M3FN>) -> (tensor<4xf128>, tensor<4xf8E4M3FN>) {
  %0 = quant_qdq.fake_quant %x <bits = 16, narrow_range = false> scale [0.1] : tensor<4xf128>
  %1 = quant_qdq.fake_quant %0 <bits = 16, narrow_range = false> scale [0.1] : tensor<4xf128>
  %2 = quant_qdq.fake_quant %y <bits = 8, narrow_range = false> scale [0.1] : tensor<4xf8E4M3FN>
  %3 = quant_qdq.fake_quant %2 <bits = 8, narrow_range = false> scale [0.1] : tensor<4xf8E4M3FN>
  return %1, %3 : tensor<4xf128>, tensor<4xf8E4M3FN>
}
