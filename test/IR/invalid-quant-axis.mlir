// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// The quantizer axis must name a dimension of the float tensor.

func.func @axis_equals_rank(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op quantizer axis 2 is out of range for a tensor of rank 2}}
  %y = quant_qdq.quantize %x <bits = 8, axis = 2> : tensor<4x3xf32> -> tensor<4x3xi8>
  return
}

// -----

func.func @axis_far_out(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op quantizer axis 100 is out of range for a tensor of rank 2}}
  %y = quant_qdq.fake_quant %x <bits = 8, axis = 100> scale [1.0] : tensor<4x3xf32>
  return
}

// -----

func.func @axis_on_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op quantizer axis 0 is out of range for a tensor of rank 0}}
  %y = quant_qdq.quantize %x <bits = 8, axis = 0> scale [1.0] : tensor<f32> -> tensor<i8>
  return
}

// -----

// Negative axes are rejected by the quantizer itself.
func.func @negative_axis(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{quantizer axis must be non-negative, got -1}}
  %y = quant_qdq.quantize %x <bits = 8, axis = -1> : tensor<4x3xf32> -> tensor<4x3xi8>
  return
}

// -----

// Per-axis over the wrong axis: 4 output channels along axis 0, 3 along 1.
func.func @wrong_axis(%w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op expects 3 scales (one per slice along axis 1), got 4}}
  %y = quant_qdq.fake_quant %w <bits = 8, axis = 1> scale [0.1, 0.2, 0.3, 0.4] : tensor<4x3x3x3xf32>
  return
}
