// RUN: qdq-opt %s --split-input-file --convert-quant-qdq-to-onnx | FileCheck %s
// RUN: qdq-opt %s --split-input-file --convert-quant-qdq-to-onnx --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// Windows are written in full (defaults included); the node keeps the
// layer's name and its result's tensor name.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @convolution
func.func @convolution(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4xf32>, tensor<1x4x1x1xf32>) {
  // CHECK: %[[C:.*]] = quant_qdq.generic "Conv" "conv" %arg0, %arg1, %arg2 {layer_attributes = {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}, quant_qdq.tensor_names = ["conv_out"]}
  %c = quant_qdq.conv2d "conv" %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, quant_qdq.tensor_names = ["conv_out"]} : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: quant_qdq.generic "MaxPool" "max" %[[C]] {layer_attributes = {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}}
  %m = quant_qdq.max_pool2d "max" %c {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: quant_qdq.generic "AveragePool" "avg" %[[C]] {layer_attributes = {ceil_mode = 1 : i64, count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}}
  %a = quant_qdq.avg_pool2d "avg" %c {kernel_shape = array<i64: 2, 2>, ceil_mode, count_include_pad} : (tensor<1x4x4x4xf32>) -> tensor<1x4x3x3xf32>
  // A global pooling that drops H and W is the pooling and a Flatten.
  // CHECK: %[[P:.*]] = quant_qdq.generic "GlobalAveragePool" "gap" %[[C]] : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32>
  // CHECK: quant_qdq.generic "Flatten" %[[P]] {layer_attributes = {axis = 1 : i64}} : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>
  %g = quant_qdq.global_avg_pool2d "gap" %c {keep_dims = false} : (tensor<1x4x4x4xf32>) -> tensor<1x4xf32>
  // CHECK: quant_qdq.generic "GlobalMaxPool" "gmp" %[[C]] : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32>
  %h = quant_qdq.global_max_pool2d "gmp" %c : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32>
  return %m, %c, %g, %h : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4xf32>, tensor<1x4x1x1xf32>
}
}
// LOC-LABEL: func @convolution
// LOC: "Flatten" {{.*}} loc(#[[FLATTEN:loc[0-9]*]])
// LOC: #[[FLATTEN]] = loc("gap_flatten"

// -----

// A dense on a 2-D input is a Gemm; on more dimensions a MatMul (with the
// weight transposed by a node when stored [N, K]) and an Add for the bias.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @dense
func.func @dense(%x: tensor<2x8xf32>, %s: tensor<2x5x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x5x4xf32>) {
  // CHECK: quant_qdq.generic "Gemm" "fc" %arg0, %arg2, %arg3 {layer_attributes = {transB = 1 : i64}}
  %0 = quant_qdq.dense "fc" %x, %w, %b {transpose_weight} : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  // CHECK: %[[T:.*]] = quant_qdq.generic "Transpose" %arg2 {layer_attributes = {perm = array<i64: 1, 0>}} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  // CHECK: %[[M:.*]] = quant_qdq.generic "MatMul" "proj" %arg1, %[[T]] : (tensor<2x5x8xf32>, tensor<8x4xf32>) -> tensor<2x5x4xf32>
  // CHECK: quant_qdq.generic "Add" %[[M]], %arg3 {quant_qdq.tensor_names = ["proj_out"]}
  %1 = quant_qdq.dense "proj" %s, %w, %b {transpose_weight, quant_qdq.tensor_names = ["proj_out"]} : (tensor<2x5x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x5x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x5x4xf32>
}
}

// -----

// Batch normalization, softmax (its axis made explicit), concat, add of
// two (Add) and of three (Sum), multiply of three (a chain of Muls with
// the broadcast type in between).
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @elementwise
func.func @elementwise(%x: tensor<1x4x2x2xf32>, %c: tensor<4xf32>, %g: tensor<1x4x1x1xf32>) -> (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x8x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) {
  // CHECK: quant_qdq.generic "BatchNormalization" "bn" %arg0, %arg1, %arg1, %arg1, %arg1 {layer_attributes = {epsilon = 1.000000e-03 : f32}}
  %bn = quant_qdq.batch_norm "bn" %x, %c, %c, %c, %c {epsilon = 1.0e-3 : f32} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  // CHECK: quant_qdq.generic "Softmax" "sm" %arg0 {layer_attributes = {axis = 1 : i64}}
  %sm = quant_qdq.softmax "sm" %x {axis = -3 : i64} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  // CHECK: quant_qdq.generic "Concat" "cat" %arg0, %arg0 {layer_attributes = {axis = 1 : i64}}
  %cat = quant_qdq.concat "cat" %x, %x {axis = 1 : i64} : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x8x2x2xf32>
  // CHECK: quant_qdq.generic "Add" "add" %arg0, %arg0 :
  %add = quant_qdq.add "add" %x, %x : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  // CHECK: quant_qdq.generic "Sum" "sum" %arg0, %arg0, %arg0 :
  %sum = quant_qdq.add "sum" %x, %x, %x : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  // CHECK: %[[P:.*]] = quant_qdq.generic "Mul" %arg2, %arg2 : (tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
  // CHECK: quant_qdq.generic "Mul" "mul" %[[P]], %arg0 : (tensor<1x4x1x1xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %mul = quant_qdq.multiply "mul" %g, %g, %x : (tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  return %bn, %sm, %cat, %add, %sum, %mul : tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x8x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>
}
}

// -----

// Shape layers; a dropout is dropped. Pad takes its pads (and a nonzero
// value) as inputs from opset 11 on, named after the layer.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @shapes
func.func @shapes(%x: tensor<1x4x2x2xf32>) -> (tensor<1x16xf32>, tensor<2x8xf32>, tensor<1x2x2x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x2x2xf32>) {
  // CHECK: quant_qdq.generic "Flatten" "flat" %arg0 {layer_attributes = {axis = 1 : i64}}
  %f = quant_qdq.flatten "flat" %x : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
  // CHECK: %[[SHAPE:.*]] = arith.constant dense<[2, 8]> : tensor<2xi64>
  // CHECK: quant_qdq.generic "Reshape" "rs" %arg0, %[[SHAPE]]
  %r = quant_qdq.reshape "rs" %x {shape = array<i64: 2, 8>} : (tensor<1x4x2x2xf32>) -> tensor<2x8xf32>
  // CHECK: quant_qdq.generic "Transpose" "tr" %arg0 {layer_attributes = {perm = array<i64: 0, 2, 3, 1>}}
  %t = quant_qdq.transpose "tr" %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x2x2xf32>) -> tensor<1x2x2x4xf32>
  // CHECK-DAG: %[[PADS:.*]] = arith.constant dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>
  // CHECK-DAG: %[[VALUE:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
  // CHECK: quant_qdq.generic "Pad" "pad" %arg0, %[[PADS]], %[[VALUE]] {layer_attributes = {mode = "constant"}}
  %p = quant_qdq.pad "pad" %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.5 : f32} : (tensor<1x4x2x2xf32>) -> tensor<1x4x4x4xf32>
  // CHECK-NOT: Dropout
  // CHECK: return {{.*}}, %arg0 :
  %d = quant_qdq.dropout "drop" %x : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  return %f, %r, %t, %p, %d : tensor<1x16xf32>, tensor<2x8xf32>, tensor<1x2x2x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x2x2xf32>
}
}
// LOC-LABEL: func @shapes
// LOC-DAG: #{{loc[0-9]*}} = loc("rs_shape"
// LOC-DAG: #{{loc[0-9]*}} = loc("pad_pads"
// LOC-DAG: #{{loc[0-9]*}} = loc("pad_value"

// -----

// Before opset 11, Pad's pads and value are attributes.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 10 : i64}} {
// CHECK-LABEL: func @pad_opset10
func.func @pad_opset10(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: quant_qdq.generic "Pad" "pad" %arg0 {layer_attributes = {mode = "reflect", pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>}}
  %p = quant_qdq.pad "pad" %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = #quant_qdq<pad_mode reflect>} : (tensor<1x4x2x2xf32>) -> tensor<1x4x4x4xf32>
  return %p : tensor<1x4x4x4xf32>
}
}

// -----

// From opset 23 an rms_norm is RMSNormalization, given a scale of ones
// when it has none.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 23 : i64}} {
// CHECK-LABEL: func @rms_norm_23
func.func @rms_norm_23(%x: tensor<2x3x8xf32>, %g: tensor<8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  // CHECK: quant_qdq.generic "RMSNormalization" "rms" %arg0, %arg1 {layer_attributes = {axis = 2 : i64, epsilon = 9.99999997E-7 : f32}}
  %0 = quant_qdq.rms_norm "rms" %x scale %g {epsilon = 1.0e-6 : f32} : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  // CHECK: %[[ONES:.*]] = arith.constant dense<1.000000e+00> : tensor<3x8xf32>
  // CHECK: quant_qdq.generic "RMSNormalization" "plain" %arg0, %[[ONES]] {layer_attributes = {axis = 1 : i64, epsilon = 9.99999974E-6 : f32}}
  %1 = quant_qdq.rms_norm "plain" %x {axis = -2 : i64} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %0, %1 : tensor<2x3x8xf32>, tensor<2x3x8xf32>
}
}

// -----

// Without a scale over dynamic dimensions (no constant of ones fits), and
// before opset 23, the formula: ONNX's own definition of the node, the
// axes of the mean an input from opset 18.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 23 : i64}} {
// CHECK-LABEL: func @rms_norm_dynamic
func.func @rms_norm_dynamic(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  // CHECK: %[[SQ:.*]] = quant_qdq.generic "Mul" %arg0, %arg0 : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[AXES:.*]] = arith.constant dense<1> : tensor<1xi64>
  // CHECK: %[[MS:.*]] = quant_qdq.generic "ReduceMean" %[[SQ]], %[[AXES]] : (tensor<2x?xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  // CHECK: %[[EPS:.*]] = arith.constant dense<9.99999974E-6> : tensor<f32>
  // CHECK: %[[SUM:.*]] = quant_qdq.generic "Add" %[[MS]], %[[EPS]] : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  // CHECK: %[[ROOT:.*]] = quant_qdq.generic "Sqrt" %[[SUM]] : (tensor<2x1xf32>) -> tensor<2x1xf32>
  // CHECK: quant_qdq.generic "Div" "rms" %arg0, %[[ROOT]] : (tensor<2x?xf32>, tensor<2x1xf32>) -> tensor<2x?xf32>
  %0 = quant_qdq.rms_norm "rms" %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}
}

// -----

module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 17 : i64}} {
// CHECK-LABEL: func @rms_norm_17
func.func @rms_norm_17(%x: tensor<2x3x8xf32>, %g: tensor<3x8xf32>) -> tensor<2x3x8xf32> {
  // CHECK: %[[SQ:.*]] = quant_qdq.generic "Mul" %arg0, %arg0
  // CHECK: %[[MS:.*]] = quant_qdq.generic "ReduceMean" %[[SQ]] {layer_attributes = {axes = array<i64: 1, 2>}} : (tensor<2x3x8xf32>) -> tensor<2x1x1xf32>
  // CHECK: %[[SUM:.*]] = quant_qdq.generic "Add" %[[MS]]
  // CHECK: %[[ROOT:.*]] = quant_qdq.generic "Sqrt" %[[SUM]]
  // CHECK: %[[N:.*]] = quant_qdq.generic "Div" %arg0, %[[ROOT]] : (tensor<2x3x8xf32>, tensor<2x1x1xf32>) -> tensor<2x3x8xf32>
  // CHECK: quant_qdq.generic "Mul" "rms" %[[N]], %arg1 : (tensor<2x3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
  %0 = quant_qdq.rms_norm "rms" %x scale %g {axis = 1 : i64} : (tensor<2x3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}
}
