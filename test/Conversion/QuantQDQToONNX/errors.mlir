// RUN: qdq-opt %s --split-input-file --verify-diagnostics --convert-quant-qdq-to-onnx

// What ONNX cannot express is an error at the op.

func.func @nhwc(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32> {
  // expected-error @+1 {{ONNX is NCHW: cannot export a layer in nhwc layout}}
  %y = quant_qdq.conv2d %x, %w {layout = #quant_qdq<layout nhwc>} : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32>
  return %y : tensor<1x4x4x3xf32>
}

// -----

func.func @bits(%x: tensor<4xf32>) -> tensor<4xi6> {
  // expected-error @+1 {{ONNX QuantizeLinear/DequantizeLinear store 4, 8 or 16 bits; this quantizer has 6}}
  %q = quant_qdq.quantize %x <bits = 6> scale [0.1] : tensor<4xf32> -> tensor<4xi6>
  return %q : tensor<4xi6>
}

// -----

func.func @uncalibrated(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{quantize/dequantize has no scale}}
  %y = quant_qdq.fake_quant %x <bits = 8> : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @arith(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arith.addf' has no ONNX form}}
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 12 : i64}} {
func.func @softmax(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{before opset 13 ONNX Softmax works on the last axis only}}
  %y = quant_qdq.softmax %x {axis = 0 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
}

// -----

module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 9 : i64}} {
func.func @ceil(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  // expected-error @+1 {{ceil_mode pooling needs opset >= 10, the model imports 9}}
  %y = quant_qdq.max_pool2d %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %y : tensor<1x1x3x3xf32>
}
}
