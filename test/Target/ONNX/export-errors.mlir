// What ONNX cannot express is an error at the op, with exit status 1 and no
// output file.

// RUN: rm -f %t.onnx
// RUN: not qdq-translate --export-onnx --split-input-file %s -o %t.onnx 2>&1 | FileCheck %s
// RUN: test ! -e %t.onnx

// CHECK: export-errors.mlir:{{[0-9]+}} offset :{{[0-9]+}}:8: error: ONNX is NCHW: cannot export a layer in nhwc layout
func.func @main(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = arith.constant dense<1.0> : tensor<1x1x2x2xf32>
  %y = quant_qdq.conv2d "conv" %x, %w {layout = #quant_qdq<layout nhwc>} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}

// -----

// CHECK: export-errors.mlir:{{[0-9]+}} offset :{{[0-9]+}}:8: error: ONNX QuantizeLinear/DequantizeLinear store 4, 8 or 16 bits; this quantizer has 6
func.func @main(%x: tensor<4xf32>) -> tensor<4xi6> {
  %q = quant_qdq.quantize %x <bits = 6> scale [0.5] : tensor<4xf32> -> tensor<4xi6>
  return %q : tensor<4xi6>
}

// -----

// CHECK: export-errors.mlir:{{[0-9]+}} offset :{{[0-9]+}}:8: error: 'arith.addf' has no ONNX form
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// CHECK: error: export needs a function @main, or exactly one function with a body
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// TensorQuant's number formats have no ONNX operator.
// CHECK: export-errors.mlir:{{[0-9]+}} offset :{{[0-9]+}}:8: error: the ternary number format ('ternary,1,0.5') has no ONNX form: TensorQuant's formats are fake quantization only
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = quant_qdq.round_to_format %x <ternary, threshold = 0.5> : tensor<4xf32>
  return %y : tensor<4xf32>
}
