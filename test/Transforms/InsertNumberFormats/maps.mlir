// TensorQuant's maps: the first key (in file order) that a layer's name
// contains decides, "none" leaves a layer alone, a format alone applies to
// every layer; outputs are rounded after the layer, every weight (kernel,
// bias, normalization parameters) before it. A second run changes nothing,
// and a key that matches no layer is a warning at the key.

// RUN: qdq-opt %s --insert-number-formats="outputs=%S/Inputs/outputs.json weights='binary,0.5'" 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// RUN: qdq-opt %s --insert-number-formats="outputs=%S/Inputs/outputs.json weights='binary,0.5'" 2>/dev/null | qdq-opt --insert-number-formats="outputs=%S/Inputs/outputs.json weights='binary,0.5'" 2>/dev/null | FileCheck %s
// RUN: qdq-opt %s --insert-number-formats="weights=fp16" | FileCheck %s --check-prefix=HALF

// WARN: outputs.json:6:3: warning: 'head' selects no layer
// WARN-NOT: warning

// CHECK-LABEL: func.func @net
// CHECK: %[[W1:.*]] = quant_qdq.round_to_format %arg1 <binary, marginal = 5.000000e-01>
// CHECK-NEXT: %[[C1:.*]] = quant_qdq.conv2d "block1_conv" %arg0, %[[W1]]
// CHECK-NEXT: %[[R1:.*]] = quant_qdq.round_to_format %[[C1]] <fixed_point, bits = 16, fraction_bits = 8>
// CHECK-NEXT: %[[G:.*]] = quant_qdq.round_to_format %arg3 <binary, marginal = 5.000000e-01>
// CHECK-NEXT: %[[B:.*]] = quant_qdq.round_to_format %arg4 <binary, marginal = 5.000000e-01>
// CHECK-NEXT: %[[M:.*]] = quant_qdq.round_to_format %arg5 <binary, marginal = 5.000000e-01>
// CHECK-NEXT: %[[V:.*]] = quant_qdq.round_to_format %arg6 <binary, marginal = 5.000000e-01>
// CHECK-NEXT: %[[BN:.*]] = quant_qdq.batch_norm "block1_bn" %[[R1]], %[[G]], %[[B]], %[[M]], %[[V]]
// CHECK-NEXT: %[[W2:.*]] = quant_qdq.round_to_format %arg2 <binary, marginal = 5.000000e-01>
// CHECK-NEXT: %[[C2:.*]] = quant_qdq.conv2d "block2_conv" %[[BN]], %[[W2]]
// CHECK-NEXT: %[[R2:.*]] = quant_qdq.round_to_format %[[C2]] <ternary, marginal = 5.000000e-01>
// CHECK-NEXT: %[[F:.*]] = quant_qdq.flatten "flatten" %[[R2]]
// CHECK-NEXT: %[[W3:.*]] = quant_qdq.round_to_format %arg7 <binary, marginal = 5.000000e-01>
// CHECK-NEXT: %[[B3:.*]] = quant_qdq.round_to_format %arg8 <binary, marginal = 5.000000e-01>
// CHECK-NEXT: %[[D:.*]] = quant_qdq.dense "fc" %[[F]], %[[W3]], %[[B3]]
// CHECK-NEXT: %[[R3:.*]] = quant_qdq.round_to_format %[[D]] <fixed_point, bits = 8, fraction_bits = 4, rounding = stochastic, seed = 3>
// CHECK-NEXT: return %[[R3]]

// HALF-LABEL: func.func @net
// HALF-COUNT-8: quant_qdq.round_to_format %arg{{[1-8]}} <half>
// HALF-NOT: round_to_format
// HALF-LABEL: func.func @fused
func.func @net(%x: tensor<1x2x4x4xf32>, %w1: tensor<2x2x3x3xf32>, %w2: tensor<2x2x3x3xf32>,
               %g: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>,
               %w3: tensor<32x3xf32>, %b3: tensor<3xf32>) -> tensor<1x3xf32> {
  %c1 = quant_qdq.conv2d "block1_conv" %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %bn = quant_qdq.batch_norm "block1_bn" %c1, %g, %b, %m, %v : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %c2 = quant_qdq.conv2d "block2_conv" %bn, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %f = quant_qdq.flatten "flatten" %c2 : (tensor<1x2x4x4xf32>) -> tensor<1x32xf32>
  %y = quant_qdq.dense "fc" %f, %w3, %b3 : (tensor<1x32xf32>, tensor<32x3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// A Keras layer's fused activation is its own op here: the output is
// rounded after it, once, as the layer's name decides (not the
// activation's: "relu" matching first changes nothing).
// RUN: qdq-opt %s --insert-number-formats="outputs=fp16" | FileCheck %s --check-prefix=FUSED
// RUN: qdq-opt %s --insert-number-formats="outputs=%S/Inputs/fused.json" 2>/dev/null | FileCheck %s --check-prefix=FUSED
// FUSED-LABEL: func.func @fused
// FUSED: %[[C:.*]] = quant_qdq.conv2d "conv1" %arg0, %arg1
// FUSED-NEXT: %[[A:.*]] = quant_qdq.activation relu "conv1/relu" %[[C]]
// FUSED-NEXT: %[[R:.*]] = quant_qdq.round_to_format %[[A]] <half>
// FUSED-NEXT: return %[[R]]
func.func @fused(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %c = quant_qdq.conv2d "conv1" %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %a = quant_qdq.activation relu "conv1/relu" %c : tensor<1x2x4x4xf32>
  return %a : tensor<1x2x4x4xf32>
}

// A constant a layer reads as an activation (a generic ONNX node's
// initializer, an Add's constant) is one of its parameters too.
// RUN: qdq-opt %s --insert-number-formats="weights=logarithmic" | FileCheck %s --check-prefix=CONST
// CONST-LABEL: func.func @constants
// CONST: %[[C:.*]] = arith.constant
// CONST-NEXT: %[[R:.*]] = quant_qdq.round_to_format %[[C]] <logarithmic>
// CONST-NEXT: quant_qdq.generic "MatMul" "mm" %arg0, %[[R]]
// CONST-NOT: round_to_format
func.func @constants(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<0.5> : tensor<4x3xf32>
  %y = quant_qdq.generic "MatMul" "mm" %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
