// RUN: qdq-opt %s --split-input-file --convert-quant-qdq-to-onnx | FileCheck %s
// RUN: qdq-opt %s --split-input-file --convert-quant-qdq-to-onnx --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// Activations in the form of the module's opset (13): Clip's bounds as
// inputs, hard swish as x * HardSigmoid(x) (HardSwish is opset 14), swish
// as x * Sigmoid(x), gelu as x * 0.5 * (1 + Erf(x / sqrt 2)); the node that
// computes the result is the layer's own. A linear activation is dropped.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @opset13
func.func @opset13(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  // CHECK: quant_qdq.generic "Relu" "relu" %arg0 :
  %0 = quant_qdq.activation relu "relu" %x : tensor<1x4xf32>
  // CHECK: quant_qdq.generic "LeakyRelu" "leaky" %arg0 {layer_attributes = {alpha = 0.00999999977 : f32}}
  %1 = quant_qdq.activation leaky_relu "leaky" %x : tensor<1x4xf32>
  // CHECK-DAG: %[[LO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
  // CHECK-DAG: %[[HI:.*]] = arith.constant dense<6.000000e+00> : tensor<f32>
  // CHECK: quant_qdq.generic "Clip" "relu6" %arg0, %[[LO]], %[[HI]] :
  %2 = quant_qdq.activation relu6 "relu6" %x : tensor<1x4xf32>
  // CHECK: %[[HS:.*]] = quant_qdq.generic "HardSigmoid" %arg0 {layer_attributes = {alpha = 0.166666672 : f32, beta = 5.000000e-01 : f32}}
  // CHECK: quant_qdq.generic "Mul" "hswish" %arg0, %[[HS]] :
  %3 = quant_qdq.activation hard_swish "hswish" %x : tensor<1x4xf32>
  // CHECK: %[[S:.*]] = quant_qdq.generic "Sigmoid" %arg0 :
  // CHECK: quant_qdq.generic "Mul" "silu" %arg0, %[[S]] :
  %4 = quant_qdq.activation swish "silu" %x : tensor<1x4xf32>
  // CHECK: %[[SQRT2:.*]] = arith.constant dense<1.41421354> : tensor<f32>
  // CHECK: %[[DIV:.*]] = quant_qdq.generic "Div" %arg0, %[[SQRT2]]
  // CHECK: %[[ERF:.*]] = quant_qdq.generic "Erf" %[[DIV]]
  // CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
  // CHECK: %[[ADD:.*]] = quant_qdq.generic "Add" %[[ERF]], %[[ONE]]
  // CHECK: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
  // CHECK: %[[GATE:.*]] = quant_qdq.generic "Mul" %[[ADD]], %[[HALF]]
  // CHECK: quant_qdq.generic "Mul" "gelu" %arg0, %[[GATE]] :
  %5 = quant_qdq.activation gelu "gelu" %x : tensor<1x4xf32>
  // CHECK: quant_qdq.generic "HardSigmoid" "hsig" %arg0 {layer_attributes = {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32}}
  %6 = quant_qdq.activation hard_sigmoid "hsig" %x : tensor<1x4xf32>
  // CHECK-NOT: "lin"
  // CHECK: return {{.*}}, %arg0 :
  %7 = quant_qdq.activation linear "lin" %x : tensor<1x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
}
}
// Helper nodes and constants are named after the layer.
// LOC-LABEL: func @opset13
// LOC-DAG: #{{loc[0-9]*}} = loc("relu6_min"
// LOC-DAG: #{{loc[0-9]*}} = loc("relu6_max"
// LOC-DAG: #{{loc[0-9]*}} = loc("hswish_gate"
// LOC-DAG: #{{loc[0-9]*}} = loc("gelu_erf"
// LOC-DAG: #{{loc[0-9]*}} = loc("gelu_sqrt2"

// -----

// From opset 14 hard swish is a node; before opset 11 Clip's bounds are
// attributes; before 13 Softmax flattens, so only a last-axis softmax (the
// default axis -1) can be written.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 14 : i64}} {
// CHECK-LABEL: func @opset14
func.func @opset14(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // CHECK: quant_qdq.generic "HardSwish" "hswish" %arg0 :
  %0 = quant_qdq.activation hard_swish "hswish" %x : tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
}

// -----

module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 10 : i64}} {
// CHECK-LABEL: func @opset10
func.func @opset10(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
  // CHECK: quant_qdq.generic "Clip" "clip" %arg0 {layer_attributes = {max = 2.000000e+00 : f32, min = -1.000000e+00 : f32}}
  %0 = quant_qdq.activation clip "clip" %x {min = -1.0 : f32, max = 2.0 : f32} : tensor<1x4xf32>
  // CHECK: quant_qdq.generic "Softmax" "sm" %arg0 {layer_attributes = {axis = 1 : i64}}
  %1 = quant_qdq.softmax "sm" %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0, %1 : tensor<1x4xf32>, tensor<1x4xf32>
}
}

// -----

// GELU's tanh approximation is written out before opset 20; from 20 on
// both GELUs are ONNX's Gelu.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @gelu_tanh_opset13
func.func @gelu_tanh_opset13(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // CHECK: %[[SQ:.*]] = quant_qdq.generic "Mul" %arg0, %arg0
  // CHECK: %[[CUBE:.*]] = quant_qdq.generic "Mul" %arg0, %[[SQ]]
  // CHECK: %[[C:.*]] = arith.constant dense<4.471500e-02> : tensor<f32>
  // CHECK: %[[CUBIC:.*]] = quant_qdq.generic "Mul" %[[CUBE]], %[[C]]
  // CHECK: %[[INNER:.*]] = quant_qdq.generic "Add" %arg0, %[[CUBIC]]
  // CHECK: %[[K:.*]] = arith.constant dense<0.797884583> : tensor<f32>
  // CHECK: %[[ARG:.*]] = quant_qdq.generic "Mul" %[[INNER]], %[[K]]
  // CHECK: %[[TANH:.*]] = quant_qdq.generic "Tanh" %[[ARG]]
  // CHECK: %[[ADD:.*]] = quant_qdq.generic "Add" %[[TANH]]
  // CHECK: %[[GATE:.*]] = quant_qdq.generic "Mul" %[[ADD]]
  // CHECK: quant_qdq.generic "Mul" "gelu" %arg0, %[[GATE]] :
  %0 = quant_qdq.activation gelu_tanh "gelu" %x : tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
}

// -----

module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 20 : i64}} {
// CHECK-LABEL: func @gelu_opset20
func.func @gelu_opset20(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
  // CHECK: quant_qdq.generic "Gelu" "exact" %arg0 {layer_attributes = {approximate = "none"}}
  // CHECK: quant_qdq.generic "Gelu" "tanh" %{{.*}} {layer_attributes = {approximate = "tanh"}}
  %0 = quant_qdq.activation gelu "exact" %x : tensor<1x4xf32>
  %1 = quant_qdq.activation gelu_tanh "tanh" %x : tensor<1x4xf32>
  return %0, %1 : tensor<1x4xf32>, tensor<1x4xf32>
}
}
