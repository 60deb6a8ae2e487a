// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// Blocked quantizers need an axis, a positive block size, and one scale per
// block.

func.func @no_axis(%x: tensor<8xf32>) {
  // expected-error @+1 {{a quantizer with a block size needs an axis}}
  %y = quant_qdq.fake_quant %x <bits = 4, block_size = 4> : tensor<8xf32>
  return
}

// -----

func.func @zero_block(%x: tensor<8xf32>) {
  // expected-error @+1 {{quantizer block size must be positive, got 0}}
  %y = quant_qdq.fake_quant %x <bits = 4, axis = 0, block_size = 0> : tensor<8xf32>
  return
}

// -----

func.func @scale_count(%x: tensor<8x3xf32>) {
  // expected-error @+1 {{expects 6 scales (one per block of 4 along axis 0), got 2}}
  %y = quant_qdq.fake_quant %x <bits = 4, axis = 0, block_size = 4> scale [1.0, 2.0] : tensor<8x3xf32>
  return
}

// -----

func.func @zero_point_count(%x: tensor<8x3xf32>) {
  // expected-error @+1 {{expects as many zero points as scales (6), got 1}}
  %y = quant_qdq.fake_quant %x <bits = 4, axis = 0, block_size = 4, symmetric = false> scale [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] zero_point [1] : tensor<8x3xf32>
  return
}
