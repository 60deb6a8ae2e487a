// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// Zero points: one per scale, inside the storage range, and 0 for a
// symmetric signed quantizer.

func.func @zero_point_without_scale(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op a zero point needs a scale}}
  %y = quant_qdq.quantize %x <bits = 8, symmetric = false> zero_point [3] : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

func.func @count_mismatch(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op expects as many zero points as scales (2), got 1}}
  %y = quant_qdq.fake_quant %x <bits = 8, symmetric = false, axis = 0> scale [0.1, 0.2] zero_point [0] : tensor<2x4xf32>
  return
}

// -----

func.func @too_many_zero_points(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op expects as many zero points as scales (1), got 2}}
  %y = quant_qdq.quantize %x <bits = 8, symmetric = false> scale [0.1] zero_point [0, 0] : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

func.func @above_int8(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op zero point #0 = 128 is outside the storage range [-128, 127]}}
  %y = quant_qdq.quantize %x <bits = 8, symmetric = false> scale [0.1] zero_point [128] : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

func.func @below_int8(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op zero point #0 = -129 is outside the storage range [-128, 127]}}
  %y = quant_qdq.quantize %x <bits = 8, symmetric = false> scale [0.1] zero_point [-129] : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

func.func @negative_unsigned(%q: tensor<4xi8>) {
  // expected-error @+1 {{'quant_qdq.dequantize' op zero point #0 = -1 is outside the storage range [0, 255]}}
  %y = quant_qdq.dequantize %q <bits = 8, is_signed = false, symmetric = false> scale [0.1] zero_point [-1] : tensor<4xi8> -> tensor<4xf32>
  return
}

// -----

func.func @above_uint8(%q: tensor<4xi8>) {
  // expected-error @+1 {{'quant_qdq.dequantize' op zero point #0 = 256 is outside the storage range [0, 255]}}
  %y = quant_qdq.dequantize %q <bits = 8, is_signed = false> scale [0.1] zero_point [256] : tensor<4xi8> -> tensor<4xf32>
  return
}

// -----

func.func @above_uint4(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op zero point #0 = 16 is outside the storage range [0, 15]}}
  %y = quant_qdq.fake_quant %x <bits = 4, is_signed = false> scale [0.1] zero_point [16] : tensor<4xf32>
  return
}

// -----

// The second slice's zero point is the faulty one.
func.func @per_axis_out_of_range(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op zero point #1 = 40000 is outside the storage range [-32768, 32767]}}
  %y = quant_qdq.quantize %x <bits = 16, symmetric = false, axis = 0> scale [0.1, 0.1, 0.1] zero_point [0, 40000, 0] : tensor<3x4xf32> -> tensor<3x4xi16>
  return
}

// -----

func.func @symmetric_signed(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op zero point #0 = 5 must be 0 for a symmetric signed quantizer}}
  %y = quant_qdq.quantize %x <bits = 8> scale [0.1] zero_point [5] : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

func.func @symmetric_signed_per_axis(%q: tensor<3x4xi8>) {
  // expected-error @+1 {{'quant_qdq.dequantize' op zero point #2 = -1 must be 0 for a symmetric signed quantizer}}
  %y = quant_qdq.dequantize %q <bits = 8, axis = 0> scale [0.1, 0.1, 0.1] zero_point [0, 0, -1] : tensor<3x4xi8> -> tensor<3x4xf32>
  return
}

// -----

// Narrow range drops -128 from the values, not from the zero points'
// range; the symmetric check still applies.
func.func @symmetric_signed_storage_min(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op zero point #0 = -128 must be 0 for a symmetric signed quantizer}}
  %y = quant_qdq.fake_quant %x <bits = 8> scale [0.1] zero_point [-128] : tensor<4xf32>
  return
}
