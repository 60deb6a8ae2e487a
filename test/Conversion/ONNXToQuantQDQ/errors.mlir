// RUN: qdq-opt %s --split-input-file --verify-diagnostics --convert-onnx-to-quant-qdq

// A malformed node is an error naming it, not a generic op.
func.func @unknown_auto_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x2x2xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{node 'conv' (Conv): unknown auto_pad 'SAME'}}
  %0 = quant_qdq.generic "Conv" "conv" %x, %w {layer_attributes = {auto_pad = "SAME"}} : (tensor<1x3x8x8xf32>, tensor<4x3x2x2xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @weight_does_not_fit(%x: tensor<1x3x8x8xf32>, %w: tensor<4x5x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{node 'conv' (Conv): input has 3 channels but the weight expects 5 per group x 1 groups}}
  %0 = quant_qdq.generic "Conv" "conv" %x, %w : (tensor<1x3x8x8xf32>, tensor<4x5x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @attribute_of_another_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{node 'leaky' (LeakyRelu): attribute 'alpha' must be a float}}
  %0 = quant_qdq.generic "LeakyRelu" "leaky" %x {layer_attributes = {alpha = 1 : i64}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Window lists of the wrong length are malformed (ONNX accepts them at the
// schema level): one value of pads for a 2-D kernel.
func.func @pads_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{node 'conv' (Conv): 'pads' has 1 values; a window over 2 spatial dimensions needs 4}}
  %0 = quant_qdq.generic "Conv" "conv" %x, %w {layer_attributes = {pads = array<i64: 1>}} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @pool_strides_length(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{node 'pool' (MaxPool): 'strides' has 3 values; a window over 2 spatial dimensions needs 2}}
  %0 = quant_qdq.generic "MaxPool" "pool" %x {layer_attributes = {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2, 2>}} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @kernel_shape_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{node 'conv' (Conv): 'kernel_shape' [5, 5] is not the weight's [3, 3]}}
  %0 = quant_qdq.generic "Conv" "conv" %x, %w {layer_attributes = {kernel_shape = array<i64: 5, 5>}} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// Axes outside the input's rank.
func.func @softmax_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{node 'sm' (Softmax): axis 2 is outside [-2, 1]}}
  %0 = quant_qdq.generic "Softmax" "sm" %x {layer_attributes = {axis = 2 : i64}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @flatten_axis(%x: tensor<2x3xf32>) -> tensor<6x1xf32> {
  // expected-error @+1 {{node 'flat' (Flatten): axis -3 is outside [-2, 2]}}
  %0 = quant_qdq.generic "Flatten" "flat" %x {layer_attributes = {axis = -3 : i64}} : (tensor<2x3xf32>) -> tensor<6x1xf32>
  return %0 : tensor<6x1xf32>
}

// -----

module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 17 : i64}} {
func.func @layer_norm_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{node 'ln' (LayerNormalization): axis 2 is outside [-2, 1]}}
  %0 = quant_qdq.generic "LayerNormalization" "ln" %x, %s {layer_attributes = {axis = 2 : i64}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
}

// -----

module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 23 : i64}} {
func.func @rms_norm_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{node 'rms' (RMSNormalization): axis -3 is outside [-2, 1]}}
  %0 = quant_qdq.generic "RMSNormalization" "rms" %x, %s {layer_attributes = {axis = -3 : i64}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
}

// -----

module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 20 : i64}} {
func.func @gelu_approximation(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{node 'gelu' (Gelu): approximate must be 'none' or 'tanh', got 'fast'}}
  %0 = quant_qdq.generic "Gelu" "gelu" %x {layer_attributes = {approximate = "fast"}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
}
