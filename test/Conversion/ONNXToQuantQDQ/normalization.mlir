// RUN: qdq-opt %s --split-input-file --convert-onnx-to-quant-qdq | FileCheck %s

// RMSNormalization (opset 23) is an rms_norm with its axis and epsilon; a
// node that computes in another precision (stash_type 0) or whose scale
// spans a dimension it does not normalize stays generic.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 23 : i64}} {
// CHECK-LABEL: func @rms_normalization
func.func @rms_normalization(%x: tensor<2x3x8xf32>, %s: tensor<8xf32>, %r: tensor<2x1x8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  // CHECK: quant_qdq.rms_norm "rms" %arg0 scale %arg1 {epsilon = 9.99999997E-7 : f32} : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %0 = quant_qdq.generic "RMSNormalization" "rms" %x, %s {layer_attributes = {axis = -1 : i64, epsilon = 1.0e-6 : f32}} : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  // CHECK: quant_qdq.generic "RMSNormalization" "stash"
  %1 = quant_qdq.generic "RMSNormalization" "stash" %x, %s {layer_attributes = {stash_type = 0 : i64}} : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  // CHECK: quant_qdq.generic "RMSNormalization" "per_row"
  %2 = quant_qdq.generic "RMSNormalization" "per_row" %x, %r : (tensor<2x3x8xf32>, tensor<2x1x8xf32>) -> tensor<2x3x8xf32>
  return %0, %1, %2 : tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>
}
}

// -----

// Before opset 23 the node is not ONNX's: it stays generic.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 22 : i64}} {
// CHECK-LABEL: func @rms_normalization_22
func.func @rms_normalization_22(%x: tensor<2x8xf32>, %s: tensor<8xf32>) -> tensor<2x8xf32> {
  // CHECK: quant_qdq.generic "RMSNormalization" "rms"
  %0 = quant_qdq.generic "RMSNormalization" "rms" %x, %s : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
}

// -----

// The formula written out, x / Sqrt(ReduceMean(x^2) + eps), with the
// weight's Mul after it, is one rms_norm under the root's name; the input
// may have other readers.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 17 : i64}} {
// CHECK-LABEL: func @formula
func.func @formula(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  // CHECK: %[[N:.*]] = quant_qdq.rms_norm "rms" %arg0 scale %{{.*}} {axis = 1 : i64, epsilon = 9.99999997E-7 : f32} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  // CHECK-NEXT: %[[R:.*]] = quant_qdq.add "residual" %[[N]], %arg0
  // CHECK-NEXT: return %[[N]], %[[R]]
  %two = arith.constant dense<2.0> : tensor<f32>
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %w = arith.constant dense<1.5> : tensor<8xf32>
  %sq = quant_qdq.generic "Pow" %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %ms = quant_qdq.generic "ReduceMean" %sq {layer_attributes = {axes = array<i64: -1>, keepdims = 1 : i64}} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %mse = quant_qdq.generic "Add" %ms, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %rms = quant_qdq.generic "Sqrt" %mse : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = quant_qdq.generic "Div" "rms" %x, %rms : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %y = quant_qdq.generic "Mul" "rms_weight" %w, %n : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = quant_qdq.generic "Add" "residual" %y, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y, %r : tensor<2x8xf32>, tensor<2x8xf32>
}
}

// -----

// What is not the formula stays as it is: an epsilon that is not a
// constant scalar, a mean without keepdims, over a leading axis, a cube
// for the square, a square of another value, and an epsilon whose rank
// widens the result by broadcasting.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 17 : i64}} {
// CHECK-LABEL: func @not_the_formula
// CHECK-NOT: rms_norm
// CHECK: return
func.func @not_the_formula(%x: tensor<2x8xf32>, %e: tensor<f32>, %z: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<1x2x8xf32>) {
  %two = arith.constant dense<2.0> : tensor<f32>
  %three = arith.constant dense<3.0> : tensor<f32>
  %eps2 = arith.constant dense<[1.0e-6, 1.0e-5]> : tensor<2xf32>
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %eps3 = arith.constant dense<1.0e-6> : tensor<1x1x1xf32>
  // epsilon from data
  %sq0 = quant_qdq.generic "Pow" %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %ms0 = quant_qdq.generic "ReduceMean" %sq0 {layer_attributes = {axes = array<i64: -1>}} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %mse0 = quant_qdq.generic "Add" %ms0, %e : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %rms0 = quant_qdq.generic "Sqrt" %mse0 : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n0 = quant_qdq.generic "Div" "data_eps" %x, %rms0 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  // two epsilons
  %sq1 = quant_qdq.generic "Pow" %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %ms1 = quant_qdq.generic "ReduceMean" %sq1 {layer_attributes = {axes = array<i64: -1>}} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %mse1 = quant_qdq.generic "Add" %ms1, %eps2 : (tensor<2x1xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %rms1 = quant_qdq.generic "Sqrt" %mse1 : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %n1 = quant_qdq.generic "Div" "two_eps" %x, %rms1 : (tensor<2x8xf32>, tensor<2x2xf32>) -> tensor<2x8xf32>
  // keepdims 0
  %sq2 = quant_qdq.generic "Pow" %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %ms2 = quant_qdq.generic "ReduceMean" %sq2 {layer_attributes = {axes = array<i64: 0>, keepdims = 0 : i64}} : (tensor<2x8xf32>) -> tensor<8xf32>
  %mse2 = quant_qdq.generic "Add" %ms2, %eps : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %rms2 = quant_qdq.generic "Sqrt" %mse2 : (tensor<8xf32>) -> tensor<8xf32>
  %n2 = quant_qdq.generic "Div" "no_keepdims" %x, %rms2 : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  // a leading axis
  %sq3 = quant_qdq.generic "Pow" %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %ms3 = quant_qdq.generic "ReduceMean" %sq3 {layer_attributes = {axes = array<i64: 0>}} : (tensor<2x8xf32>) -> tensor<1x8xf32>
  %mse3 = quant_qdq.generic "Add" %ms3, %eps : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %rms3 = quant_qdq.generic "Sqrt" %mse3 : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %n3 = quant_qdq.generic "Div" "leading" %x, %rms3 : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  // a cube
  %sq4 = quant_qdq.generic "Pow" %x, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %ms4 = quant_qdq.generic "ReduceMean" %sq4 {layer_attributes = {axes = array<i64: -1>}} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %mse4 = quant_qdq.generic "Add" %ms4, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %rms4 = quant_qdq.generic "Sqrt" %mse4 : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n4 = quant_qdq.generic "Div" "cube" %x, %rms4 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  // the mean square of another value
  %sq5 = quant_qdq.generic "Mul" %z, %z : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %ms5 = quant_qdq.generic "ReduceMean" %sq5 {layer_attributes = {axes = array<i64: -1>}} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %mse5 = quant_qdq.generic "Add" %ms5, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %rms5 = quant_qdq.generic "Sqrt" %mse5 : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n5 = quant_qdq.generic "Div" "other" %x, %rms5 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  // an epsilon of higher rank, which widens the result by broadcasting
  %sq6 = quant_qdq.generic "Pow" %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %ms6 = quant_qdq.generic "ReduceMean" %sq6 {layer_attributes = {axes = array<i64: -1>}} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %mse6 = quant_qdq.generic "Add" %ms6, %eps3 : (tensor<2x1xf32>, tensor<1x1x1xf32>) -> tensor<1x2x1xf32>
  %rms6 = quant_qdq.generic "Sqrt" %mse6 : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %n6 = quant_qdq.generic "Div" "widening" %x, %rms6 : (tensor<2x8xf32>, tensor<1x2x1xf32>) -> tensor<1x2x8xf32>
  return %n0, %n1, %n2, %n3, %n4, %n5, %n6 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<1x2x8xf32>
}
}

// -----

// Intermediate values read outside the formula keep it apart: the mean
// square, the root, its reciprocal.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 17 : i64}} {
// CHECK-LABEL: func @shared_steps
// CHECK-NOT: rms_norm
// CHECK: return
func.func @shared_steps(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x8xf32>, tensor<2x1xf32>) {
  %two = arith.constant dense<2.0> : tensor<f32>
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %sq0 = quant_qdq.generic "Pow" %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %ms0 = quant_qdq.generic "ReduceMean" %sq0 {layer_attributes = {axes = array<i64: -1>}} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %mse0 = quant_qdq.generic "Add" %ms0, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %rms0 = quant_qdq.generic "Sqrt" %mse0 : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n0 = quant_qdq.generic "Div" "mean_read" %x, %rms0 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %sq1 = quant_qdq.generic "Pow" %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %ms1 = quant_qdq.generic "ReduceMean" %sq1 {layer_attributes = {axes = array<i64: -1>}} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %mse1 = quant_qdq.generic "Add" %ms1, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %rms1 = quant_qdq.generic "Sqrt" %mse1 : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n1 = quant_qdq.generic "Div" "root_read" %x, %rms1 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %sq2 = quant_qdq.generic "Pow" %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %ms2 = quant_qdq.generic "ReduceMean" %sq2 {layer_attributes = {axes = array<i64: -1>}} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %mse2 = quant_qdq.generic "Add" %ms2, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %rms2 = quant_qdq.generic "Sqrt" %mse2 : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %inv2 = quant_qdq.generic "Reciprocal" %rms2 : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n2 = quant_qdq.generic "Mul" "inverse_read" %x, %inv2 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return %n0, %ms0, %n1, %rms1, %n2, %inv2 : tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x8xf32>, tensor<2x1xf32>
}
}
