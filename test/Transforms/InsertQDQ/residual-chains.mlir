// The residual rule: the first Add input whose producer chain is Conv,
// BN <- Conv, Act <- BN <- Conv or Dropout <- Act <- BN <- Conv, and which
// has one consumer, stays in float; every other input is quantized.
// RUN: qdq-opt %s --insert-qdq=residual --split-input-file | FileCheck %s

// Conv on the right: the left input is the skip branch.
// CHECK-LABEL: func.func @conv_right
// CHECK: %[[C:.*]] = quant_qdq.conv2d "conv"
// CHECK: quant_qdq.add "add" %[[DQ:.*]], %[[C]] :
func.func @conv_right(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %c = quant_qdq.conv2d "conv" %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %s = quant_qdq.add "add" %x, %c : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %s : tensor<1x4x4x4xf32>
}

// -----

// Dropout <- Act <- BN <- Conv is a convolution branch.
// CHECK-LABEL: func.func @long_chain
// CHECK: %[[D:.*]] = quant_qdq.dropout "drop"
// CHECK: quant_qdq.add "add" %[[D]], %{{.*}} :
func.func @long_chain(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>, %p: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %c = quant_qdq.conv2d "conv" %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %b = quant_qdq.batch_norm "bn" %c, %p, %p, %p, %p : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %a = quant_qdq.activation relu "relu" %b : tensor<1x4x4x4xf32>
  %d = quant_qdq.dropout "drop" %a : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %s = quant_qdq.add "add" %d, %x : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %s : tensor<1x4x4x4xf32>
}

// -----

// Both inputs are convolution branches: the first stays in float.
// CHECK-LABEL: func.func @two_convs
// CHECK: %[[C1:.*]] = quant_qdq.conv2d "conv1"
// CHECK: %[[C2:.*]] = quant_qdq.conv2d "conv2"
// CHECK-NEXT: %[[Q:.*]] = quant_qdq.quantize %[[C2]]
// CHECK-NEXT: %[[DQ:.*]] = quant_qdq.dequantize %[[Q]]
// CHECK-NEXT: quant_qdq.add "add" %[[C1]], %[[DQ]] :
func.func @two_convs(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %c1 = quant_qdq.conv2d "conv1" %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %c2 = quant_qdq.conv2d "conv2" %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %s = quant_qdq.add "add" %c1, %c2 : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %s : tensor<1x4x4x4xf32>
}

// -----

// A convolution output with a second consumer cannot fuse into the Add:
// no input qualifies, so both are quantized.
// CHECK-LABEL: func.func @shared_conv
// CHECK: %[[QX:.*]] = quant_qdq.quantize %arg0
// CHECK-NEXT: %[[DQX:.*]] = quant_qdq.dequantize %[[QX]]
// CHECK: %[[C:.*]] = quant_qdq.conv2d "conv"
// CHECK-NEXT: %[[Q:.*]] = quant_qdq.quantize %[[C]]
// CHECK-NEXT: %[[DQC:.*]] = quant_qdq.dequantize %[[Q]]
// CHECK-NEXT: quant_qdq.add "add" %[[DQC]], %[[DQX]] :
// CHECK: return {{.*}}, %[[C]] :
func.func @shared_conv(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %c = quant_qdq.conv2d "conv" %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %s = quant_qdq.add "add" %c, %x : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %s, %c : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// Three inputs: the second is the convolution branch; the others are quantized.
// CHECK-LABEL: func.func @three_inputs
// CHECK: %[[C:.*]] = quant_qdq.conv2d "conv"
// CHECK: quant_qdq.add "add" %[[DQ0:.*]], %[[C]], %[[DQ2:.*]] :
func.func @three_inputs(%x: tensor<1x4x4x4xf32>, %y: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %c = quant_qdq.conv2d "conv" %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %s = quant_qdq.add "add" %y, %c, %x : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %s : tensor<1x4x4x4xf32>
}
