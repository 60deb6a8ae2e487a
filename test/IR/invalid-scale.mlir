// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// Scales: one per tensor or one per slice along the axis, each positive
// and finite.

func.func @per_tensor_two_scales(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op expects 1 scale (per tensor), got 2}}
  %y = quant_qdq.quantize %x <bits = 8> scale [0.1, 0.2] : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

func.func @per_axis_too_few(%w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op expects 4 scales (one per slice along axis 0), got 1}}
  %y = quant_qdq.quantize %w <bits = 8, axis = 0> scale [0.1] : tensor<4x3x3x3xf32> -> tensor<4x3x3x3xi8>
  return
}

// -----

func.func @per_axis_too_many(%w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op expects 3 scales (one per slice along axis 1), got 4}}
  %y = quant_qdq.fake_quant %w <bits = 8, axis = 1> scale [0.1, 0.1, 0.1, 0.1] : tensor<4x3x3x3xf32>
  return
}

// -----

func.func @empty_scale(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op scale must hold at least one value}}
  %y = quant_qdq.quantize %x <bits = 8> scale [] : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

// Even where the axis is dynamic and the count cannot be checked.
func.func @empty_scale_dynamic_axis(%x: tensor<?xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op scale must hold at least one value}}
  %y = quant_qdq.fake_quant %x <bits = 8, axis = 0> scale [] : tensor<?xf32>
  return
}

// -----

func.func @zero_scale(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op scale #0 must be positive and finite, got 0.000000e+00}}
  %y = quant_qdq.quantize %x <bits = 8> scale [0.0] : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

func.func @negative_scale(%q: tensor<2x3xi8>) {
  // expected-error @+1 {{'quant_qdq.dequantize' op scale #2 must be positive and finite, got -5.000000e-01}}
  %y = quant_qdq.dequantize %q <bits = 8, axis = 1> scale [0.5, 0.5, -0.5] : tensor<2x3xi8> -> tensor<2x3xf32>
  return
}

// -----

func.func @negative_zero_scale(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op scale #0 must be positive and finite, got -0.000000e+00}}
  %y = quant_qdq.fake_quant %x <bits = 8> scale [-0.0] : tensor<4xf32>
  return
}

// -----

// 1.0e39 overflows f32 to infinity.
func.func @infinite_scale(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op scale #0 must be positive and finite, got INF}}
  %y = quant_qdq.quantize %x <bits = 8> scale [1.0e39] : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

func.func @infinite_scale_generic(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op scale #0 must be positive and finite, got INF}}
  %y = "quant_qdq.fake_quant"(%x) <{quantizer = #quant_qdq.quantizer<bits = 8>, scale = array<f32: 0x7F800000>}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @nan_scale(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op scale #1 must be positive and finite, got nan}}
  %y = "quant_qdq.fake_quant"(%x) <{quantizer = #quant_qdq.quantizer<bits = 8, axis = 0>, scale = array<f32: 1.0, 0x7FC00000>}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Scales are f32: f64 or integer arrays are rejected.
func.func @scale_f64(%x: tensor<4xf32>) {
  // expected-error @+1 {{invalid properties}}
  %y = "quant_qdq.fake_quant"(%x) <{quantizer = #quant_qdq.quantizer<bits = 8>, scale = array<f64: 1.0>}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// The float side's axis is dynamic, the storage side's is 3: 3 scales.
func.func @per_axis_count_from_storage(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op expects 3 scales (one per slice along axis 0), got 2}}
  %y = quant_qdq.quantize %x <bits = 8, axis = 0> scale [0.1, 0.2] : tensor<?x4xf32> -> tensor<3x4xi8>
  return
}

// -----

func.func @per_axis_count_from_storage_dequantize(%q: tensor<2x3xi8>) {
  // expected-error @+1 {{'quant_qdq.dequantize' op expects 3 scales (one per slice along axis 1), got 1}}
  %y = quant_qdq.dequantize %q <bits = 8, axis = 1> scale [0.1] : tensor<2x3xi8> -> tensor<2x?xf32>
  return
}
