// RUN: qdq-opt %s --split-input-file --convert-onnx-to-quant-qdq | FileCheck %s

// Flatten, Reshape with a constant target (0 copies a dimension, -1 is
// resolved on a static input), Transpose (default: reversed), Identity and
// inference-mode Dropout (dropped).
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @shape_layers
func.func @shape_layers(%x: tensor<2x3x4xf32>, %t: tensor<?x3x4xf32>) -> (tensor<2x12xf32>, tensor<2x12xf32>, tensor<4x3x2xf32>, tensor<2x3x4xf32>, tensor<?x12xf32>, tensor<?x3x4xf32>) {
  %shape = arith.constant dense<[0, -1]> : tensor<2xi64>
  %training = arith.constant dense<false> : tensor<i1>
  // CHECK: quant_qdq.flatten "flat" %{{.*}} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %0 = quant_qdq.generic "Flatten" "flat" %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  // CHECK: quant_qdq.reshape "view" %{{.*}} {shape = array<i64: 2, 12>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %1 = quant_qdq.generic "Reshape" "view" %x, %shape : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  // CHECK: quant_qdq.transpose "rev" %{{.*}} {perm = array<i64: 2, 1, 0>}
  %2 = quant_qdq.generic "Transpose" "rev" %x : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  // CHECK-NOT: Identity
  // CHECK-NOT: Dropout
  %3 = quant_qdq.generic "Identity" "id" %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %4 = quant_qdq.generic "Dropout" "drop" %3, %training {quant_qdq.onnx.omitted_inputs = array<i64: 1>} : (tensor<2x3x4xf32>, tensor<i1>) -> tensor<2x3x4xf32>
  // The copied dynamic dimension becomes the one -1.
  // CHECK: quant_qdq.reshape "dyn" %{{.*}} {shape = array<i64: -1, 12>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  %c12 = arith.constant dense<[0, 12]> : tensor<2xi64>
  %5 = quant_qdq.generic "Reshape" "dyn" %t, %c12 : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x12xf32>
  // CHECK: return {{.*}}, %arg0, {{.*}}, %arg1
  return %0, %1, %2, %4, %5, %t : tensor<2x12xf32>, tensor<2x12xf32>, tensor<4x3x2xf32>, tensor<2x3x4xf32>, tensor<?x12xf32>, tensor<?x3x4xf32>
}
}

// -----

// A Reshape whose target is computed at run time, and a Dropout in training
// mode, stay generic.
// CHECK-LABEL: func @kept
func.func @kept(%x: tensor<2x3x4xf32>, %shape: tensor<2xi64>) -> (tensor<?x?xf32>, tensor<2x3x4xf32>) {
  %training = arith.constant dense<true> : tensor<i1>
  %ratio = arith.constant dense<0.5> : tensor<f32>
  // CHECK: quant_qdq.generic "Reshape" "view"
  %0 = quant_qdq.generic "Reshape" "view" %x, %shape : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  // CHECK: quant_qdq.generic "Dropout" "drop"
  %1 = quant_qdq.generic "Dropout" "drop" %x, %ratio, %training : (tensor<2x3x4xf32>, tensor<f32>, tensor<i1>) -> tensor<2x3x4xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<2x3x4xf32>
}

// -----

// Pad: attributes before opset 11, constant inputs from it on; negative
// pads (cropping) and the axes input stay generic.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 2 : i64}} {
// CHECK-LABEL: func @pad_2
func.func @pad_2(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // CHECK: quant_qdq.pad "pad" %{{.*}} {mode = #quant_qdq<pad_mode reflect>, pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>}
  %0 = quant_qdq.generic "Pad" "pad" %x {layer_attributes = {mode = "reflect", pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>}} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}
}

// -----

module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @pad_13
func.func @pad_13(%x: tensor<1x1x2x2xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) {
  %pads = arith.constant dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>
  %crop = arith.constant dense<[0, 0, 0, 0, 0, 0, -1, -1]> : tensor<8xi64>
  %value = arith.constant dense<2.5> : tensor<f32>
  // CHECK: quant_qdq.pad "pad" %{{.*}} {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 2.500000e+00 : f32}
  %0 = quant_qdq.generic "Pad" "pad" %x, %pads, %value : (tensor<1x1x2x2xf32>, tensor<8xi64>, tensor<f32>) -> tensor<1x1x4x4xf32>
  // CHECK: quant_qdq.generic "Pad" "crop"
  %1 = quant_qdq.generic "Pad" "crop" %x, %crop : (tensor<1x1x2x2xf32>, tensor<8xi64>) -> tensor<1x1x1x1xf32>
  return %0, %1 : tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>
}
}

// -----

// A node whose second output is read stays generic, whatever its op type.
// CHECK-LABEL: func @second_output_read
func.func @second_output_read(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>) {
  // CHECK: quant_qdq.generic "Dropout" "drop"
  %0:2 = quant_qdq.generic "Dropout" "drop" %x : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xi1>
}

// -----

// A Cast of a float tensor to its own type (transformers' RMSNorm writes
// `hidden.to(input_dtype)` in float32, between the norm and its weight's
// Mul) is its input; a cast to another type, and an integer cast (int8 and
// uint8 are one MLIR type), stay.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 17 : i64}} {
// CHECK-LABEL: func @same_type_cast
// CHECK-NOT: "Cast" "same"
// CHECK: quant_qdq.generic "Cast" "to_f16" %arg0
// CHECK: quant_qdq.generic "Cast" "int" %arg1
// CHECK: return %arg0,
func.func @same_type_cast(%x: tensor<2x8xf32>, %i: tensor<4xi8>) -> (tensor<2x8xf32>, tensor<2x8xf16>, tensor<4xi8>) {
  %0 = quant_qdq.generic "Cast" "same" %x {layer_attributes = {to = 1 : i64}} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = quant_qdq.generic "Cast" "to_f16" %x {layer_attributes = {to = 10 : i64}} : (tensor<2x8xf32>) -> tensor<2x8xf16>
  %2 = quant_qdq.generic "Cast" "int" %i {layer_attributes = {to = 2 : i64}} : (tensor<4xi8>) -> tensor<4xi8>
  return %0, %1, %2 : tensor<2x8xf32>, tensor<2x8xf16>, tensor<4xi8>
}
}
