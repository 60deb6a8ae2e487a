// What cannot be lowered is reported once, at its location.
// RUN: qdq-opt %s --convert-quant-qdq-to-linalg --split-input-file -verify-diagnostics

func.func @uncalibrated(%x: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error @+1 {{'quant_qdq.quantize' op has no scale: calibrate the model, or set scales, before lowering}}
  %q = quant_qdq.quantize %x <bits = 8> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

func.func @dynamic_blocks(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'quant_qdq.fake_quant' op quantizes blocks of a tensor of dynamic shape: block scales need the sizes of the tensor}}
  %y = quant_qdq.fake_quant %x <bits = 4, axis = 1, block_size = 2> scale [1.0, 2.0] : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

func.func @unknown_layer(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'quant_qdq.generic' op cannot be lowered: no lowering for layer type 'LpNormalization'}}
  %y = quant_qdq.generic "LpNormalization" %x : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @pad_reflect(%x: tensor<4xf32>) -> tensor<6xf32> {
  %p = arith.constant dense<[1, 1]> : tensor<2xi64>
  // expected-error @+1 {{node 'pad' (Pad): mode 'reflect' cannot be executed (constant only)}}
  %y = quant_qdq.generic "Pad" "pad" %x, %p {layer_attributes = {mode = "reflect"}} : (tensor<4xf32>, tensor<2xi64>) -> tensor<6xf32>
  return %y : tensor<6xf32>
}

// -----

func.func @slice_computed_starts(%x: tensor<4xf32>, %s: tensor<1xi64>) -> tensor<2xf32> {
  %e = arith.constant dense<4> : tensor<1xi64>
  // expected-error @+1 {{node 'slice' (Slice): its starts must be constant for execution}}
  %y = quant_qdq.generic "Slice" "slice" %x, %s, %e : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @dynamic_result(%x: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{node 'erf' (Erf): result #0 must have a static shape to execute, not 'tensor<?xf32>'}}
  %y = quant_qdq.generic "Erf" "erf" %x : (tensor<4xf32>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 17 : i64}} {
func.func @resize_cubic(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %roi = arith.constant dense<> : tensor<0xf32>
  %scales = arith.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  // expected-error @+1 {{node 'up' (Resize): mode 'cubic' cannot be executed (nearest, linear on floats)}}
  %y = quant_qdq.generic "Resize" "up" %x, %roi, %scales {layer_attributes = {mode = "cubic"}} : (tensor<1x1x2x2xf32>, tensor<0xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}
}

// -----

func.func @einsum_ellipsis(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{node 'e' (Einsum): equations with '...' cannot be executed}}
  %y = quant_qdq.generic "Einsum" "e" %x {layer_attributes = {equation = "...ij->...ji"}} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// A 1-D operand of dynamic size reshaped to a row: the reshape keeps its
// one group (its size cannot be split), and the shape check reports it.
func.func @dynamic_vector_matmul(%x: tensor<?xf32>, %w: tensor<4x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{node 'm' (MatMul): inner dimensions differ}}
  %y = quant_qdq.generic "MatMul" "m" %x, %w : (tensor<?xf32>, tensor<4x3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
