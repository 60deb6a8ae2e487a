// Every model export writes first passes ONNX's full checker (structure,
// schemas at the model's opsets, strict shape inference), run on the model
// without its weights: what ONNX refuses is an error at the op whose node
// it names, exit status 1, and no file. These generic ops are exported as
// written and were files ONNX Runtime refuses.

// RUN: rm -f %t.onnx
// RUN: not qdq-translate --export-onnx --split-input-file %s -o %t.onnx 2>&1 | FileCheck %s
// RUN: test ! -e %t.onnx

// CHECK: export-self-check.mlir:{{[0-9]+}} offset :{{[0-9]+}}:8: error: the ONNX model fails ONNX's full checker, so it is not written: node 'relu' (Relu): Unrecognized attribute: alpha for operator Relu
func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %0 = quant_qdq.generic "Relu" "relu" %x {layer_attributes = {alpha = 1.0 : f32}} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

// CHECK: export-self-check.mlir:{{[0-9]+}} offset :{{[0-9]+}}:8: error: the ONNX model fails ONNX's full checker, so it is not written: [ShapeInferenceError] (op_type:Gather, node name: gather): indices typestr: Tind, has unsupported type: tensor(float)
func.func @main(%x: tensor<4xf32>, %i: tensor<2xf32>) -> tensor<2xf32> {
  %0 = quant_qdq.generic "Gather" "gather" %x, %i : (tensor<4xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A weight (over the 64 KiB that stay in the checked view) read as the
// indices of a Gather: checked by its type, not its bytes.
// CHECK: export-self-check.mlir:{{[0-9]+}} offset :{{[0-9]+}}:8: error: the ONNX model fails ONNX's full checker, so it is not written: [ShapeInferenceError] (op_type:Gather, node name: lookup): indices typestr: Tind, has unsupported type: tensor(float)
func.func @main(%x: tensor<4xf32>) -> tensor<128x128xf32> {
  %w = arith.constant dense<1.0> : tensor<128x128xf32>
  %0 = quant_qdq.generic "Gather" "lookup" %x, %w : (tensor<4xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}

// -----

// A graph output whose rank is unknown here (its producer's shape could not
// be inferred) has no ONNX form the checker accepts: an error naming it,
// where a file with a shapeless output used to be written.
// CHECK: export-self-check.mlir:{{[0-9]+}} offset :{{[0-9]+}}:1: error: graph output 'output_0' has no known rank (the shapes before it could not be inferred), and ONNX requires one of a graph output, so the model is not written
func.func @main(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = quant_qdq.generic "Relu" "relu" %x : (tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
