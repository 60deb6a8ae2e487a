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
