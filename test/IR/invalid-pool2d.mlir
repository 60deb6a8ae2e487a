// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// avg_pool2d and max_pool2d.

func.func @missing_kernel_shape(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'quant_qdq.max_pool2d' op requires attribute 'kernel_shape'}}
  %y = quant_qdq.max_pool2d %x : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @zero_kernel(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'quant_qdq.avg_pool2d' op attribute 'kernel_shape' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %y = quant_qdq.avg_pool2d %x {kernel_shape = array<i64: 0, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x7xf32>
  return
}

// -----

func.func @one_kernel_size(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'quant_qdq.max_pool2d' op attribute 'kernel_shape' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %y = quant_qdq.max_pool2d %x {kernel_shape = array<i64: 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @zero_stride(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'quant_qdq.avg_pool2d' op attribute 'strides' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %y = quant_qdq.avg_pool2d %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @negative_pad(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'quant_qdq.max_pool2d' op attribute 'pads' failed to satisfy constraint: i64 dense array attribute with exactly 4 elements whose value is non-negative}}
  %y = quant_qdq.max_pool2d %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: -1, 0, 0, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x6x7xf32>
  return
}

// -----

func.func @negative_dilation(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'quant_qdq.max_pool2d' op attribute 'dilations' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %y = quant_qdq.max_pool2d %x {kernel_shape = array<i64: 2, 2>, dilations = array<i64: -1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @window_too_large(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{pooling window of 5 does not fit the padded input of 4}}
  // expected-error @+1 {{'quant_qdq.avg_pool2d' op failed to infer returned types}}
  %y = quant_qdq.avg_pool2d %x {kernel_shape = array<i64: 5, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x1x4xf32>
  return
}

// -----

// Dilation 3 spans 3 * (2 - 1) + 1 = 4 columns; the padded width is 3.
func.func @dilated_window_too_large(%x: tensor<1x3x8x2xf32>) {
  // expected-error @+2 {{pooling window of 4 does not fit the padded input of 3}}
  // expected-error @+1 {{'quant_qdq.max_pool2d' op failed to infer returned types}}
  %y = quant_qdq.max_pool2d %x {kernel_shape = array<i64: 2, 2>, dilations = array<i64: 1, 3>, pads = array<i64: 0, 0, 0, 1>} : (tensor<1x3x8x2xf32>) -> tensor<1x3x7x1xf32>
  return
}

// -----

// ceil_mode changes the size: 8 windows, not 7.
func.func @ceil_mode_ignored(%x: tensor<1x8x16x16xf32>) {
  // expected-error @+2 {{'quant_qdq.avg_pool2d' op inferred type(s) 'tensor<1x8x8x8xf32>' are incompatible with return type(s) of operation 'tensor<1x8x7x7xf32>'}}
  // expected-error @+1 {{'quant_qdq.avg_pool2d' op failed to infer returned types}}
  %y = quant_qdq.avg_pool2d %x {ceil_mode, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x7x7xf32>
  return
}

// -----

// A window may not start in the trailing padding: 2 windows, not 3.
func.func @ceil_mode_window_in_padding(%x: tensor<1x1x3x3xf32>) {
  // expected-error @+2 {{'quant_qdq.max_pool2d' op inferred type(s) 'tensor<1x1x2x2xf32>' are incompatible with return type(s) of operation 'tensor<1x1x3x3xf32>'}}
  // expected-error @+1 {{'quant_qdq.max_pool2d' op failed to infer returned types}}
  %y = quant_qdq.max_pool2d %x {ceil_mode, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return
}

// -----

// Pooling keeps the channels.
func.func @channels_changed(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{'quant_qdq.max_pool2d' op inferred type(s) 'tensor<1x3x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x6x4x4xf32>'}}
  // expected-error @+1 {{'quant_qdq.max_pool2d' op failed to infer returned types}}
  %y = quant_qdq.max_pool2d %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x6x4x4xf32>
  return
}

// -----

// In NHWC the spatial dimensions are 1 and 2.
func.func @nhwc_pools_wrong_axes(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+2 {{'quant_qdq.avg_pool2d' op inferred type(s) 'tensor<1x4x4x3xf32>' are incompatible with return type(s) of operation 'tensor<1x8x4x1xf32>'}}
  // expected-error @+1 {{'quant_qdq.avg_pool2d' op failed to infer returned types}}
  %y = quant_qdq.avg_pool2d %x {kernel_shape = array<i64: 2, 2>, layout = #quant_qdq<layout nhwc>, strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>) -> tensor<1x8x4x1xf32>
  return
}

// -----

func.func @input_rank(%x: tensor<3x8x8xf32>) {
  // expected-error @+1 {{'quant_qdq.max_pool2d' op operand #0 must be 4D tensor of floating-point values, but got 'tensor<3x8x8xf32>'}}
  %y = quant_qdq.max_pool2d %x {kernel_shape = array<i64: 2, 2>} : (tensor<3x8x8xf32>) -> tensor<3x7x7xf32>
  return
}

// -----

func.func @ceil_mode_not_unit(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'quant_qdq.avg_pool2d' op attribute 'ceil_mode' failed to satisfy constraint: unit attribute}}
  %y = quant_qdq.avg_pool2d %x {ceil_mode = 1 : i64, kernel_shape = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  return
}
