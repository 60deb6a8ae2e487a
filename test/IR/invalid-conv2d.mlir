// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// Shape errors of quant_qdq.conv2d, reported by its shape function.

func.func @channels_not_divisible_by_groups(%x: tensor<1x6x8x8xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+2 {{input channels (6) are not divisible by groups (4)}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w {groups = 4 : i64} : (tensor<1x6x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @outputs_not_divisible_by_groups(%x: tensor<1x8x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+2 {{output channels (6) are not divisible by groups (4)}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w {groups = 4 : i64} : (tensor<1x8x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @channel_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+2 {{input has 3 channels but the weight expects 4 per group x 1 groups}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<16x4x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

// A depthwise weight (one channel per group) without groups.
func.func @depthwise_without_groups(%x: tensor<1x32x8x8xf32>, %w: tensor<32x1x3x3xf32>) {
  // expected-error @+2 {{input has 32 channels but the weight expects 1 per group x 1 groups}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w : (tensor<1x32x8x8xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x6x6xf32>
  return
}

// -----

func.func @grouped_channel_mismatch(%x: tensor<1x8x8x8xf32>, %w: tensor<8x2x3x3xf32>) {
  // expected-error @+2 {{input has 8 channels but the weight expects 2 per group x 2 groups}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w {groups = 2 : i64} : (tensor<1x8x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

// NHWC reads the channels from the last input axis and the weight's third.
func.func @nhwc_channel_mismatch(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x4x16xf32>) {
  // expected-error @+2 {{input has 3 channels but the weight expects 4 per group x 1 groups}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w {layout = #quant_qdq<layout nhwc>} : (tensor<1x8x8x3xf32>, tensor<3x3x4x16xf32>) -> tensor<1x6x6x16xf32>
  return
}

// -----

// An OIHW weight read as HWIO: a 16 x 3 kernel, taller than the input.
func.func @nhwc_with_nchw_weight(%x: tensor<1x8x8x3xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{convolution window of 16 does not fit the padded input of 8}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w {layout = #quant_qdq<layout nhwc>} : (tensor<1x8x8x3xf32>, tensor<16x3x3x3xf32>) -> tensor<1x6x6x3xf32>
  return
}

// -----

func.func @bias_size(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{bias must hold one value per output channel (16)}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<8xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @dynamic_kernel(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x?x3xf32>) {
  // expected-error @+2 {{expects a static kernel size}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<16x3x?x3xf32>) -> tensor<1x16x?x6xf32>
  return
}

// -----

func.func @empty_kernel(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x0x3xf32>) {
  // expected-error @+2 {{kernel sizes, strides and dilations must be positive}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<16x3x0x3xf32>) -> tensor<1x16x9x6xf32>
  return
}

// -----

func.func @kernel_larger_than_input(%x: tensor<1x3x4x4xf32>, %w: tensor<16x3x7x7xf32>) {
  // expected-error @+2 {{convolution window of 7 does not fit the padded input of 6}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x4x4xf32>, tensor<16x3x7x7xf32>) -> tensor<1x16x1x1xf32>
  return
}

// -----

// Dilation 3 widens a 3-wide kernel to 7, more than the 6 columns.
func.func @dilated_window_too_wide(%x: tensor<1x3x8x6xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{convolution window of 7 does not fit the padded input of 6}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w {dilations = array<i64: 1, 3>} : (tensor<1x3x8x6xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x1xf32>
  return
}

// -----

func.func @wrong_output_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'quant_qdq.conv2d' op inferred type(s) 'tensor<1x16x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x8x6x6xf32>'}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

// Forgetting the stride: 224 - 7 + 6 + 1 = 224, not 112.
func.func @wrong_spatial_size(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>) {
  // expected-error @+2 {{'quant_qdq.conv2d' op inferred type(s) 'tensor<1x64x224x224xf32>' are incompatible with return type(s) of operation 'tensor<1x64x112x112xf32>'}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w {pads = array<i64: 3, 3, 3, 3>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
  return
}

// -----

// An NCHW result for an NHWC convolution.
func.func @wrong_layout_result(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x16xf32>) {
  // expected-error @+2 {{'quant_qdq.conv2d' op inferred type(s) 'tensor<1x6x6x16xf32>' are incompatible with return type(s) of operation 'tensor<1x16x6x6xf32>'}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w {layout = #quant_qdq<layout nhwc>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @wrong_batch(%x: tensor<2x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'quant_qdq.conv2d' op inferred type(s) 'tensor<2x16x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x16x6x6xf32>'}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w : (tensor<2x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @wrong_result_element_type(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'quant_qdq.conv2d' op inferred type(s) 'tensor<1x16x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x16x6x6xf16>'}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf16>
  return
}

// -----

func.func @weight_element_type(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf16>) {
  // expected-error @+2 {{expects the weight and bias to hold the input's element type 'f32'}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf16>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @bias_element_type(%x: tensor<1x3x8x8xf16>, %w: tensor<16x3x3x3xf16>, %b: tensor<16xf32>) {
  // expected-error @+2 {{expects the weight and bias to hold the input's element type 'f16'}}
  // expected-error @+1 {{'quant_qdq.conv2d' op failed to infer returned types}}
  %y = quant_qdq.conv2d %x, %w, %b : (tensor<1x3x8x8xf16>, tensor<16x3x3x3xf16>, tensor<16xf32>) -> tensor<1x16x6x6xf16>
  return
}
