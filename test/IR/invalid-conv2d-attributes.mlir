// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// ODS constraints on the operands and attributes of quant_qdq.conv2d.

func.func @input_rank(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op operand #0 must be 4D tensor of floating-point values, but got 'tensor<1x3x8xf32>'}}
  %y = quant_qdq.conv2d %x, %w : (tensor<1x3x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op operand #1 must be 4D tensor of floating-point values, but got 'tensor<4x3x3xf32>'}}
  %y = quant_qdq.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @bias_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<1x4xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op operand #2 must be 1D tensor of floating-point values, but got 'tensor<1x4xf32>'}}
  %y = quant_qdq.conv2d %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<1x4xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @integer_input(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op operand #0 must be 4D tensor of floating-point values, but got 'tensor<1x3x8x8xi8>'}}
  %y = quant_qdq.conv2d %x, %w : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @result_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op result #0 must be 4D tensor of floating-point values, but got 'tensor<4x6x6xf32>'}}
  %y = quant_qdq.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<4x6x6xf32>
  return
}

// -----

func.func @zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op attribute 'strides' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %y = quant_qdq.conv2d %x, %w {strides = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @three_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op attribute 'strides' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %y = quant_qdq.conv2d %x, %w {strides = array<i64: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @negative_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op attribute 'pads' failed to satisfy constraint: i64 dense array attribute with exactly 4 elements whose value is non-negative}}
  %y = quant_qdq.conv2d %x, %w {pads = array<i64: 0, -1, 0, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @two_pads(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op attribute 'pads' failed to satisfy constraint: i64 dense array attribute with exactly 4 elements whose value is non-negative}}
  %y = quant_qdq.conv2d %x, %w {pads = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @zero_dilation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op attribute 'dilations' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %y = quant_qdq.conv2d %x, %w {dilations = array<i64: 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @zero_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %y = quant_qdq.conv2d %x, %w {groups = 0 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @negative_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %y = "quant_qdq.conv2d"(%x, %w) <{groups = -1 : i64}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @unknown_layout(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{expected ::mlir::quant_qdq::Layout to be one of: nchw, nhwc}}
  // expected-error @+1 {{failed to parse QDQ_LayoutAttr parameter 'value' which is to be a `::mlir::quant_qdq::Layout`}}
  %y = quant_qdq.conv2d %x, %w {layout = #quant_qdq<layout chwn>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @layout_as_string(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op attribute 'layout' failed to satisfy constraint: tensor layout of a spatial layer}}
  %y = quant_qdq.conv2d %x, %w {layout = "nhwc"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @name_not_a_string(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op attribute 'name' failed to satisfy constraint: string attribute}}
  %y = quant_qdq.conv2d %x, %w {name = 3 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @too_many_operands(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.conv2d' op operand group starting at #2 requires 0 or 1 element, but found 2}}
  %y = "quant_qdq.conv2d"(%x, %w, %b, %b) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  return
}
