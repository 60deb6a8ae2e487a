// RUN: qdq-opt %s --split-input-file --convert-onnx-to-quant-qdq | FileCheck %s

// Element-wise activations with their parameters; x * Sigmoid(x) and
// x * HardSigmoid(x) (alpha 1/6, beta 1/2) fuse into swish and hard_swish
// under the Mul's name.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @activations
func.func @activations(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  // CHECK: quant_qdq.activation relu "relu"
  %0 = quant_qdq.generic "Relu" "relu" %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  // CHECK: quant_qdq.activation leaky_relu "leaky" %{{.*}} {alpha = 1.000000e-01 : f32}
  %1 = quant_qdq.generic "LeakyRelu" "leaky" %0 {layer_attributes = {alpha = 0.1 : f32}} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  // CHECK: quant_qdq.activation hard_sigmoid "hs" %{{.*}} {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32}
  %2 = quant_qdq.generic "HardSigmoid" "hs" %1 : (tensor<1x4xf32>) -> tensor<1x4xf32>
  // CHECK-NOT: sigmoid "gate"
  // CHECK: quant_qdq.activation swish "silu" %[[R:.*]] :
  %g = quant_qdq.generic "Sigmoid" "gate" %0 : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %3 = quant_qdq.generic "Mul" "silu" %0, %g : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  // CHECK: quant_qdq.activation hard_swish "hswish"
  %h = quant_qdq.generic "HardSigmoid" "hgate" %1 {layer_attributes = {alpha = 0.16666667 : f32, beta = 0.5 : f32}} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %4 = quant_qdq.generic "Mul" "hswish" %h, %1 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  // A gate read twice stays: the multiply is a multiply.
  // CHECK: %[[S:.*]] = quant_qdq.activation sigmoid "shared"
  // CHECK: quant_qdq.multiply "gated" %{{.*}}, %[[S]]
  %s = quant_qdq.generic "Sigmoid" "shared" %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %5 = quant_qdq.generic "Mul" "gated" %x, %s : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %2, %3, %4, %5, %s, %0 : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
}
}

// -----

// Clip from opset 11: bounds are constant inputs; [0, 6] is relu6, [0, inf)
// relu, anything else clip; a non-constant bound stays generic.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @clip_inputs
func.func @clip_inputs(%x: tensor<4xf32>, %hi: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant dense<0.0> : tensor<f32>
  %six = arith.constant dense<6.0> : tensor<f32>
  %neg = arith.constant dense<-1.0> : tensor<f32>
  // CHECK: quant_qdq.activation relu6 "r6"
  %0 = quant_qdq.generic "Clip" "r6" %x, %zero, %six : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: quant_qdq.activation relu "r"
  %1 = quant_qdq.generic "Clip" "r" %x, %zero : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: quant_qdq.activation clip "c" %{{.*}} {max = 6.000000e+00 : f32, min = -1.000000e+00 : f32}
  %2 = quant_qdq.generic "Clip" "c" %x, %neg, %six : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: quant_qdq.generic "Clip" "dynamic"
  %3 = quant_qdq.generic "Clip" "dynamic" %x, %zero, %hi : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
}

// -----

// Clip before opset 11 reads attributes; the omitted min of opset 11 is
// recorded in omitted_inputs.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 6 : i64}} {
// CHECK-LABEL: func @clip_attributes
func.func @clip_attributes(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: quant_qdq.activation relu6 "r6"
  %0 = quant_qdq.generic "Clip" "r6" %x {layer_attributes = {max = 6.0 : f32, min = 0.0 : f32}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
}

// -----

module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @clip_omitted_min
func.func @clip_omitted_min(%x: tensor<4xf32>) -> tensor<4xf32> {
  %six = arith.constant dense<6.0> : tensor<f32>
  // CHECK: quant_qdq.activation clip "c" %{{.*}} {max = 6.000000e+00 : f32, min = 0xFF800000 : f32}
  %0 = quant_qdq.generic "Clip" "c" %x, %six {quant_qdq.onnx.omitted_inputs = array<i64: 1>} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
}

// -----

// Softmax: from opset 13 along any axis (the default is the last); before,
// the op flattens at `axis`, a softmax along one axis only when it is the
// last one.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @softmax_13
func.func @softmax_13(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  // CHECK: quant_qdq.softmax "last" %{{.*}} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %0 = quant_qdq.generic "Softmax" "last" %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: quant_qdq.softmax "middle" %{{.*}} {axis = 1 : i64}
  %1 = quant_qdq.generic "Softmax" "middle" %x {layer_attributes = {axis = -2 : i64}} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
}

// -----

module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 11 : i64}} {
// CHECK-LABEL: func @softmax_11
func.func @softmax_11(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  // CHECK: quant_qdq.generic "Softmax" "default_axis"
  %0 = quant_qdq.generic "Softmax" "default_axis" %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: quant_qdq.softmax "last" %{{.*}} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = quant_qdq.generic "Softmax" "last" %x {layer_attributes = {axis = 2 : i64}} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
}

// -----

// BatchNormalization in inference mode; training mode stays generic.
// CHECK-LABEL: func @batch_norm
func.func @batch_norm(%x: tensor<1x4x2x2xf32>, %p: tensor<4xf32>) -> (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) {
  // CHECK: quant_qdq.batch_norm "bn" {{.*}} {epsilon = 1.000000e-03 : f32}
  %0 = quant_qdq.generic "BatchNormalization" "bn" %x, %p, %p, %p, %p {layer_attributes = {epsilon = 1.0e-3 : f32}} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  // CHECK: quant_qdq.generic "BatchNormalization" "training"
  %1 = quant_qdq.generic "BatchNormalization" "training" %x, %p, %p, %p, %p {layer_attributes = {training_mode = 1 : i64}} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  return %0, %1 : tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>
}
