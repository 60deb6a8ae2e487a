// RUN: qdq-opt %s --qdq-fold-batch-norm --split-input-file | FileCheck %s

// Two channels, 1x1 kernels over 1 input channel: w = [2, 3], b = [1, 1];
// BN scale = [1, 2], bias = [0.5, 0], mean = [1, 0], variance = [3, 0.25],
// epsilon = 1: s = [1/2, 2/sqrt(1.25)].
// w' = [1, 5.366563], b' = [(1-1)/2 + 0.5, (1-0)*1.788854 + 0] = [0.5, 1.788854].
// CHECK-LABEL: func.func @fold
// CHECK-NOT: arith.constant dense<
// CHECK-DAG: %[[W:.*]] = arith.constant dense_resource<conv_folded_w> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense_resource<conv_folded_b> : tensor<2xf32>
// CHECK: %[[Y:.*]] = quant_qdq.conv2d "conv" %arg0, %[[W]], %[[B]] : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NOT: quant_qdq.batch_norm
// CHECK: return %[[Y]]
// Little-endian f32 after a 4-byte alignment header: 1.0, 5.366563 and 0.5,
// 1.7888544.
// CHECK: conv_folded_w: "0x040000000000803FE2BAAB40"
// CHECK: conv_folded_b: "0x040000000000003F2EF9E43F"
func.func @fold(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %b = arith.constant dense<1.0> : tensor<2xf32>
  %g = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 0.0]> : tensor<2xf32>
  %m = arith.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %v = arith.constant dense<[3.0, 0.25]> : tensor<2xf32>
  %c = quant_qdq.conv2d "conv" %x, %w, %b : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y = quant_qdq.batch_norm "bn" %c, %g, %beta, %m, %v {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Left alone: the convolution has another user; the weight is an argument.
// CHECK-LABEL: func.func @keep
// CHECK-COUNT-2: quant_qdq.batch_norm
func.func @keep(%x: tensor<1x2x4x4xf32>, %wa: tensor<2x2x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = arith.constant dense<1.0> : tensor<2x2x1x1xf32>
  %p = arith.constant dense<1.0> : tensor<2xf32>
  %c = quant_qdq.conv2d "shared" %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = quant_qdq.batch_norm "bn1" %c, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %c2 = quant_qdq.conv2d "dynamic" %x, %wa : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y2 = quant_qdq.batch_norm "bn2" %c2, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y, %c, %y2 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Several pairs in a row, NHWC included.
// CHECK-LABEL: func.func @chain
// CHECK-NOT: quant_qdq.batch_norm
// CHECK: quant_qdq.conv2d "c1"
// CHECK: quant_qdq.conv2d "c2" {{.*}}layout = #quant_qdq<layout nhwc>
// CHECK-NOT: quant_qdq.batch_norm
func.func @chain(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = arith.constant dense<1.0> : tensor<1x1x2x2xf32>
  %p = arith.constant dense<1.0> : tensor<2xf32>
  %c1 = quant_qdq.conv2d "c1" %x, %w {layout = #quant_qdq<layout nhwc>} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %b1 = quant_qdq.batch_norm "b1" %c1, %p, %p, %p, %p {layout = #quant_qdq<layout nhwc>} : (tensor<1x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  %c2 = quant_qdq.conv2d "c2" %b1, %w {layout = #quant_qdq<layout nhwc>} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %b2 = quant_qdq.batch_norm "b2" %c2, %p, %p, %p, %p {layout = #quant_qdq<layout nhwc>} : (tensor<1x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  return %b2 : tensor<1x4x4x2xf32>
}
