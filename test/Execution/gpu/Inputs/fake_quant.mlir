// Fake quantization on f32 for the CPU/GPU comparison (fake-quant.test):
// per tensor and per channel, symmetric and not, signed and unsigned, with
// scales that are powers of two (exact ties) and that are not; FP8 on bf16
// too (the GPU rounds bf16 lanes in pairs and writes the type's NaN).

func.func @per_tensor_pow2(%x: tensor<4x2048xf32>) -> tensor<4x2048xf32> {
  %y = quant_qdq.fake_quant %x <bits = 8> scale [0.5] : tensor<4x2048xf32>
  return %y : tensor<4x2048xf32>
}

func.func @per_tensor(%x: tensor<4x2048xf32>) -> tensor<4x2048xf32> {
  %y = quant_qdq.fake_quant %x <bits = 8> scale [0.0235] : tensor<4x2048xf32>
  return %y : tensor<4x2048xf32>
}

func.func @per_tensor_unsigned(%x: tensor<4x2048xf32>) -> tensor<4x2048xf32> {
  %y = quant_qdq.fake_quant %x <bits = 8, is_signed = false, narrow_range = false, symmetric = false> scale [0.5] zero_point [128] : tensor<4x2048xf32>
  return %y : tensor<4x2048xf32>
}

func.func @per_tensor_4bit(%x: tensor<4x2048xf32>) -> tensor<4x2048xf32> {
  %y = quant_qdq.fake_quant %x <bits = 4> scale [0.5] : tensor<4x2048xf32>
  return %y : tensor<4x2048xf32>
}

// The channel axis is not the outermost one.
func.func @per_channel(%x: tensor<2x4x32x32xf32>) -> tensor<2x4x32x32xf32> {
  %y = quant_qdq.fake_quant %x <bits = 8, axis = 1> scale [0.5, 0.0235, 0.1, 0.003] : tensor<2x4x32x32xf32>
  return %y : tensor<2x4x32x32xf32>
}

func.func @per_channel_asymmetric(%x: tensor<2x4x32x32xf32>) -> tensor<2x4x32x32xf32> {
  %y = quant_qdq.fake_quant %x <bits = 8, axis = 1, narrow_range = false, symmetric = false> scale [0.5, 0.0235, 0.1, 0.003] zero_point [-3, 0, 17, -128] : tensor<2x4x32x32xf32>
  return %y : tensor<2x4x32x32xf32>
}

// FP8 E4M3FN: saturation at 448, ties to even on the E4M3FN grid,
// subnormals, NaN.
func.func @per_tensor_fp8(%x: tensor<4x2048xf32>) -> tensor<4x2048xf32> {
  %y = quant_qdq.fake_quant %x <bits = 8, storage = e4m3fn> scale [0.0235] : tensor<4x2048xf32>
  return %y : tensor<4x2048xf32>
}

func.func @per_tensor_fp8_bf16(%x: tensor<4x2048xbf16>) -> tensor<4x2048xbf16> {
  %y = quant_qdq.fake_quant %x <bits = 8, storage = e4m3fn> scale [0.0235] : tensor<4x2048xbf16>
  return %y : tensor<4x2048xbf16>
}

func.func @fp8_pair_bf16(%x: tensor<4x2048xf32>) -> tensor<4x2048xbf16> {
  %q = quant_qdq.quantize %x <bits = 8, storage = e4m3fn> scale [0.0235] : tensor<4x2048xf32> -> tensor<4x2048xf8E4M3FN>
  %d = quant_qdq.dequantize %q <bits = 8, storage = e4m3fn> scale [0.0235] : tensor<4x2048xf8E4M3FN> -> tensor<4x2048xbf16>
  return %d : tensor<4x2048xbf16>
}

// Blocked int4: [4, 2048] in blocks of 512 along the innermost axis (the
// [N, K] layout of a transposed dense weight), and [2048, 4] read as
// [K, N] in blocks of 256 along K.
func.func @blocked_n_k(%x: tensor<4x2048xf32>) -> tensor<4x2048xf32> {
  %y = quant_qdq.fake_quant %x <bits = 4, axis = 1, block_size = 512> scale [0.5, 0.0235, 0.1, 0.003, 0.5, 0.0235, 0.1, 0.003, 0.5, 0.0235, 0.1, 0.003, 0.5, 0.0235, 0.1, 0.003] : tensor<4x2048xf32>
  return %y : tensor<4x2048xf32>
}

func.func @blocked_k_n(%x: tensor<4x2048xf32>) -> tensor<4x2048xf32> {
  %r = tensor.collapse_shape %x [[0, 1]] : tensor<4x2048xf32> into tensor<8192xf32>
  %k = tensor.expand_shape %r [[0, 1]] output_shape [2048, 4] : tensor<8192xf32> into tensor<2048x4xf32>
  %y = quant_qdq.fake_quant %k <bits = 4, axis = 0, block_size = 256> scale [0.5, 0.0235, 0.1, 0.003, 0.5, 0.0235, 0.1, 0.003, 0.5, 0.0235, 0.1, 0.003, 0.5, 0.0235, 0.1, 0.003, 0.5, 0.0235, 0.1, 0.003, 0.5, 0.0235, 0.1, 0.003, 0.5, 0.0235, 0.1, 0.003, 0.5, 0.0235, 0.1, 0.003] : tensor<2048x4xf32>
  %f = tensor.collapse_shape %y [[0, 1]] : tensor<2048x4xf32> into tensor<8192xf32>
  %o = tensor.expand_shape %f [[0, 1]] output_shape [4, 2048] : tensor<8192xf32> into tensor<4x2048xf32>
  return %o : tensor<4x2048xf32>
}

// Blocks of 1366 along an axis of 4096: vectors straddle blocks, so each
// lane reads its own scale.
func.func @blocked_lanes(%x: tensor<4x2048xf32>) -> tensor<4x2048xf32> {
  %r = tensor.collapse_shape %x [[0, 1]] : tensor<4x2048xf32> into tensor<8192xf32>
  %k = tensor.expand_shape %r [[0, 1]] output_shape [2, 4096] : tensor<8192xf32> into tensor<2x4096xf32>
  %y = quant_qdq.fake_quant %k <bits = 4, axis = 1, block_size = 1366> scale [0.5, 0.0235, 0.1, 0.003, 0.5, 0.0235] : tensor<2x4096xf32>
  %f = tensor.collapse_shape %y [[0, 1]] : tensor<2x4096xf32> into tensor<8192xf32>
  %o = tensor.expand_shape %f [[0, 1]] output_shape [4, 2048] : tensor<8192xf32> into tensor<4x2048xf32>
  return %o : tensor<4x2048xf32>
}

// A blocked axis of size 1: still one scale per element of the rest.
func.func @blocked_unit_axis(%x: tensor<4x2048xf32>) -> tensor<1x8xf32> {
  %s = tensor.extract_slice %x[0, 0] [1, 8] [1, 1] : tensor<4x2048xf32> to tensor<1x8xf32>
  %y = quant_qdq.fake_quant %s <bits = 4, axis = 0, block_size = 4> scale [0.5, 0.0235, 0.1, 0.003, 0.5, 0.0235, 0.1, 0.003] : tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// FP8 as a quantize/dequantize pair: two kernels, the bytes in between.
func.func @fp8_pair(%x: tensor<4x2048xf32>) -> tensor<4x2048xf32> {
  %q = quant_qdq.quantize %x <bits = 8, storage = e4m3fn> scale [0.0235] : tensor<4x2048xf32> -> tensor<4x2048xf8E4M3FN>
  %d = quant_qdq.dequantize %q <bits = 8, storage = e4m3fn> scale [0.0235] : tensor<4x2048xf8E4M3FN> -> tensor<4x2048xf32>
  return %d : tensor<4x2048xf32>
}
