// --qdq-to-dot draws layers, Q/DQ nodes and edges; constants only appear
// through the weight pairs that quantize them.
// RUN: qdq-opt %s --insert-qdq=resnet-v1 | qdq-translate --qdq-to-dot | FileCheck %s
// RUN: not qdq-translate --qdq-to-dot %S/Inputs/no-body.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY
// An ONNX model draws as it imports; a broken one is the importer's error.
// RUN: %python %S/../ONNX/Inputs/make_model.py conv_block %t.onnx
// RUN: qdq-translate --qdq-to-dot %t.onnx | FileCheck %s --check-prefix=ONNX
// RUN: %python %S/../ONNX/Inputs/make_model.py cycle %t.cycle.onnx
// RUN: not qdq-translate --qdq-to-dot %t.cycle.onnx 2>&1 | FileCheck %s --check-prefix=BROKEN
// ONNX: n1 [label="conv1\nConv2D", shape=box
// ONNX: n0 -> n1;
// BROKEN: cycle.onnx:0:0: error: node 'first' (Relu): is part of a cycle

func.func @block(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = arith.constant dense<0.1> : tensor<4x4x1x1xf32>
  %c = quant_qdq.conv2d "conv" %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %s = quant_qdq.add "add" %c, %x : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %s : tensor<1x4x4x4xf32>
}

// CHECK: digraph "block" {
// CHECK: n0 [label="input 0"
// CHECK: n1 [label="Q int8"
// CHECK-NEXT: n0 -> n1;
// CHECK: n2 [label="DQ"
// CHECK-NEXT: n1 -> n2;
// CHECK: n3 [label="weight\nQ int8 axis 0"
// CHECK: n4 [label="DQ"
// CHECK-NEXT: n3 -> n4;
// CHECK: n5 [label="conv\nConv2D"
// CHECK-NEXT: n2 -> n5;
// CHECK-NEXT: n4 -> n5;
// CHECK: n6 [label="add\nAdd"
// CHECK-NEXT: n5 -> n6;
// CHECK-NEXT: n2 -> n6;
// CHECK: n7 [label="output"
// CHECK-NEXT: n6 -> n7;
// CHECK-NOT: arith.constant
// CHECK: }

// EMPTY: error: no function with a body to draw
