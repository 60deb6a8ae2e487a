// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// Shape functions on sizes whose products or sums overflow int64_t: each is
// an error, never a crash (division by a wrapped-around zero) nor a wrapped,
// negative size.

// The product of the known dimensions is 2^64, which used to wrap to 0 and
// then divide the element count.
func.func @reshape_known_product_wraps_to_zero(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{element count overflows}}
  // expected-error @+1 {{'quant_qdq.reshape' op failed to infer returned types}}
  %y = quant_qdq.reshape %x {shape = array<i64: -1, 4294967296, 4294967296>} : (tensor<2x3xf32>) -> tensor<?x?x?xf32>
  return
}

// -----

func.func @reshape_known_product_overflows(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{element count overflows}}
  // expected-error @+1 {{'quant_qdq.reshape' op failed to infer returned types}}
  %y = quant_qdq.reshape %x {shape = array<i64: 3037000500, 3037000500>} : (tensor<2x3xf32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @reshape_input_count_overflows(%x: tensor<4294967296x4294967296xf32>) {
  // expected-error @+2 {{element count overflows}}
  // expected-error @+1 {{'quant_qdq.reshape' op failed to infer returned types}}
  %y = quant_qdq.reshape %x {shape = array<i64: -1>} : (tensor<4294967296x4294967296xf32>) -> tensor<?xf32>
  return
}

// -----

// 2^32 * 2^32 used to flatten to a 0-element dimension.
func.func @flatten_overflows(%x: tensor<4294967296x4294967296x2xf32>) {
  // expected-error @+2 {{element count overflows}}
  // expected-error @+1 {{'quant_qdq.flatten' op failed to infer returned types}}
  %y = quant_qdq.flatten %x {axis = 2 : i64} : (tensor<4294967296x4294967296x2xf32>) -> tensor<?x2xf32>
  return
}

// -----

func.func @pad_overflows(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{padded size of dimension 0 overflows}}
  // expected-error @+1 {{'quant_qdq.pad' op failed to infer returned types}}
  %y = quant_qdq.pad %x {pads = array<i64: 9223372036854775807, 0, 0, 0>} : (tensor<2x3xf32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @concat_overflows(%a: tensor<9223372036854775806xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{concatenated size overflows}}
  // expected-error @+1 {{'quant_qdq.concat' op failed to infer returned types}}
  %y = quant_qdq.concat %a, %b {axis = 0 : i64} : (tensor<9223372036854775806xf32>, tensor<2xf32>) -> tensor<?xf32>
  return
}

// -----

// A dilated kernel spanning more than int64_t can hold.
func.func @pool_window_overflows(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{pooling window or padded input size overflows}}
  // expected-error @+1 {{'quant_qdq.max_pool2d' op failed to infer returned types}}
  %y = quant_qdq.max_pool2d %x {dilations = array<i64: 4, 1>, kernel_shape = array<i64: 9223372036854775807, 2>} : (tensor<1x3x8x8xf32>) -> tensor<?x?x?x?xf32>
  return
}

// -----

func.func @pool_padding_overflows(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{pooling window or padded input size overflows}}
  // expected-error @+1 {{'quant_qdq.avg_pool2d' op failed to infer returned types}}
  %y = quant_qdq.avg_pool2d %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 9223372036854775807, 0, 1>} : (tensor<1x3x8x8xf32>) -> tensor<?x?x?x?xf32>
  return
}

// -----

func.func @conv_window_overflows(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{convolution window or padded input size overflows}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w {dilations = array<i64: 9223372036854775807, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  return
}

// -----

// groups * (channels per group) wrapped around to the 0 input channels.
func.func @conv_group_channels_overflow(%x: tensor<1x0x8x8xf32>, %w: tensor<4x4611686018427387904x1x1xf32>) {
  // expected-error @+2 {{input has 0 channels but the weight expects 4611686018427387904 per group x 4 groups}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w {groups = 4 : i64} : (tensor<1x0x8x8xf32>, tensor<4x4611686018427387904x1x1xf32>) -> tensor<1x4x8x8xf32>
  return
}
