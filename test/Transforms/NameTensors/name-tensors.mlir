// qdq-name-tensors gives every graph tensor one unique name, stored in the
// IR, that calibration tables, reports and export read. Running it again
// changes nothing.
// RUN: qdq-opt %s --split-input-file --qdq-name-tensors | FileCheck %s
// RUN: qdq-opt %s --split-input-file --qdq-name-tensors --qdq-name-tensors | FileCheck %s

// Inputs and outputs keep their names; two layers named `act` get two
// tensors (the second layer is `act_2`, since a layer is literally named
// `act_1`, as export names their nodes); an unnamed layer is named after its
// class; Q/DQ results after the tensor they stand for.
// CHECK-LABEL: func.func @layers(
// CHECK-SAME: {quant_qdq.onnx.name = "image"}
// CHECK: "act" %arg0 {quant_qdq.tensor_names = ["act_output_0"]}
// CHECK: "act" %{{.*}} {quant_qdq.tensor_names = ["act_2_output_0"]}
// CHECK: "" %{{.*}} {quant_qdq.tensor_names = ["Activation_0_output_0"]}
// CHECK: quantize {{.*}} {quant_qdq.tensor_names = ["Activation_0_output_0_quantized"]}
// CHECK: dequantize {{.*}} {quant_qdq.tensor_names = ["Activation_0_output_0_dequantized"]}
// CHECK: "act_1" %{{.*}} {quant_qdq.tensor_names = ["act_1_output_0"]}
// CHECK: "out" %{{.*}} {quant_qdq.tensor_names = ["probs"]}
func.func @layers(%x: tensor<1x2x3x3xf32> {quant_qdq.onnx.name = "image"}) -> (tensor<1x2x3x3xf32> {quant_qdq.onnx.name = "probs"}) {
  %a = quant_qdq.activation relu "act" %x : tensor<1x2x3x3xf32>
  %b = quant_qdq.activation relu "act" %a : tensor<1x2x3x3xf32>
  %c = quant_qdq.activation relu "" %b : tensor<1x2x3x3xf32>
  %q = quant_qdq.quantize %c <bits = 8> : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xi8>
  %dq = quant_qdq.dequantize %q <bits = 8> : tensor<1x2x3x3xi8> -> tensor<1x2x3x3xf32>
  %d = quant_qdq.activation relu "act_1" %dq : tensor<1x2x3x3xf32>
  %e = quant_qdq.activation relu "out" %d : tensor<1x2x3x3xf32>
  return %e : tensor<1x2x3x3xf32>
}

// -----

// Without recorded names: `input_<i>` and `output_<i>`; a value returned
// twice takes the first output's name (export adds an Identity for the
// second). A weight is named after its location.
// CHECK-LABEL: func.func @defaults(
// CHECK-SAME: %arg0: tensor<1x2x3x3xf32> {quant_qdq.onnx.name = "input_0"}
// CHECK: quantize %cst {{.*}} {quant_qdq.tensor_names = ["conv.weight_quantized"]}
// CHECK: dequantize {{.*}} {quant_qdq.tensor_names = ["conv.weight_dequantized"]}
// CHECK: "conv" {{.*}} {quant_qdq.tensor_names = ["output_0"]}
func.func @defaults(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = arith.constant dense<1.0> : tensor<2x2x1x1xf32> loc("conv.weight")
  %wq = quant_qdq.quantize %w <bits = 8, axis = 0> : tensor<2x2x1x1xf32> -> tensor<2x2x1x1xi8>
  %wdq = quant_qdq.dequantize %wq <bits = 8, axis = 0> : tensor<2x2x1x1xi8> -> tensor<2x2x1x1xf32>
  %y = quant_qdq.conv2d "conv" %x, %wdq : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %y, %y : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// Stored names are kept; of two equal ones the later gets a suffix, and so
// does one that would take a graph output's name.
// CHECK-LABEL: func.func @stored(
// CHECK: "a" %arg0 {quant_qdq.tensor_names = ["t"]}
// CHECK: "b" %{{.*}} {quant_qdq.tensor_names = ["t_1"]}
// CHECK: "c" %{{.*}} {quant_qdq.tensor_names = ["y_1"]}
// CHECK: "d" %{{.*}} {quant_qdq.tensor_names = ["y"]}
func.func @stored(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32> {quant_qdq.onnx.name = "y"}) {
  %a = quant_qdq.activation relu "a" %x {quant_qdq.tensor_names = ["t"]} : tensor<1x2x3x3xf32>
  %b = quant_qdq.activation relu "b" %a {quant_qdq.tensor_names = ["t"]} : tensor<1x2x3x3xf32>
  %c = quant_qdq.activation relu "c" %b {quant_qdq.tensor_names = ["y"]} : tensor<1x2x3x3xf32>
  %d = quant_qdq.activation relu "d" %c : tensor<1x2x3x3xf32>
  return %d : tensor<1x2x3x3xf32>
}
