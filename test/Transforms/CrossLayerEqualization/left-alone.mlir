// RUN: qdq-opt %s --qdq-equalize | FileCheck %s
// RUN: qdq-opt %s --qdq-equalize | FileCheck %s --check-prefix=CLIP

// Left alone: an output with two readers, a swish between (not
// homogeneous), a grouped consumer that mixes channels in groups, a batch
// normalization between (fold it first), a weight another layer also
// reads, a clip whose lower bound is not 0, channels on another axis (an
// NCHW convolution feeding a dense layer, which reads its width), and a
// depthwise convolution with two filters per channel.
// Nothing anywhere is rescaled, and no resource is written.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: equalized
// CHECK-NOT: quant_qdq.generic
// CHECK: return
// CHECK-NOT: dialect_resources
// CLIP: quant_qdq.activation swish
// CLIP: quant_qdq.activation clip "clip" %{{.*}} {max = 6.000000e+00 : f32, min = -1.000000e+00 : f32}
func.func @left_alone(%x: tensor<1x4x4x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x2xf32>, tensor<1x8x4x4xf32>) {
  // Two readers.
  %w1 = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]], [[[8.0]], [[1.0]], [[1.0]], [[1.0]]], [[[0.5]], [[1.0]], [[1.0]], [[1.0]]], [[[1.0]], [[1.0]], [[1.0]], [[0.1]]]]> : tensor<4x4x1x1xf32>
  %w2 = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]], [[[8.0]], [[1.0]], [[1.0]], [[1.0]]], [[[0.5]], [[1.0]], [[1.0]], [[1.0]]], [[[1.0]], [[1.0]], [[1.0]], [[0.1]]]]> : tensor<4x4x1x1xf32>
  %a = quant_qdq.conv2d "two_readers" %x, %w1 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %a1 = quant_qdq.conv2d "reader1" %a, %w2 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %a2 = quant_qdq.add "reader2" %a, %x : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  // Swish between.
  %w3 = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]], [[[8.0]], [[1.0]], [[1.0]], [[1.0]]], [[[0.5]], [[1.0]], [[1.0]], [[1.0]]], [[[1.0]], [[1.0]], [[1.0]], [[0.1]]]]> : tensor<4x4x1x1xf32>
  %w4 = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]], [[[8.0]], [[1.0]], [[1.0]], [[1.0]]], [[[0.5]], [[1.0]], [[1.0]], [[1.0]]], [[[1.0]], [[1.0]], [[1.0]], [[0.1]]]]> : tensor<4x4x1x1xf32>
  %b = quant_qdq.conv2d "before_swish" %x, %w3 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %bs = quant_qdq.activation swish "swish" %b : tensor<1x4x4x4xf32>
  %b1 = quant_qdq.conv2d "after_swish" %bs, %w4 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  // A grouped consumer: 2 groups of 2 channels.
  %w5 = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]], [[[8.0]], [[1.0]], [[1.0]], [[1.0]]], [[[0.5]], [[1.0]], [[1.0]], [[1.0]]], [[[1.0]], [[1.0]], [[1.0]], [[0.1]]]]> : tensor<4x4x1x1xf32>
  %w6 = arith.constant dense<[[[[1.0]], [[9.0]]], [[[2.0]], [[1.0]]], [[[1.0]], [[0.1]]], [[[4.0]], [[1.0]]]]> : tensor<4x2x1x1xf32>
  %c = quant_qdq.conv2d "before_groups" %x, %w5 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %c1 = quant_qdq.conv2d "grouped" %c, %w6 {groups = 2 : i64} : (tensor<1x4x4x4xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32>
  // Batch normalization between.
  %w7 = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]], [[[8.0]], [[1.0]], [[1.0]], [[1.0]]], [[[0.5]], [[1.0]], [[1.0]], [[1.0]]], [[[1.0]], [[1.0]], [[1.0]], [[0.1]]]]> : tensor<4x4x1x1xf32>
  %w8 = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]], [[[8.0]], [[1.0]], [[1.0]], [[1.0]]], [[[0.5]], [[1.0]], [[1.0]], [[1.0]]], [[[1.0]], [[1.0]], [[1.0]], [[0.1]]]]> : tensor<4x4x1x1xf32>
  %p = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %d = quant_qdq.conv2d "before_bn" %x, %w7 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %dn = quant_qdq.batch_norm "bn" %d, %p, %p, %p, %p : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %d1 = quant_qdq.conv2d "after_bn" %dn, %w8 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  // A weight two layers read.
  %w9 = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]], [[[8.0]], [[1.0]], [[1.0]], [[1.0]]], [[[0.5]], [[1.0]], [[1.0]], [[1.0]]], [[[1.0]], [[1.0]], [[1.0]], [[0.1]]]]> : tensor<4x4x1x1xf32>
  %w10 = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]], [[[8.0]], [[1.0]], [[1.0]], [[1.0]]], [[[0.5]], [[1.0]], [[1.0]], [[1.0]]], [[[1.0]], [[1.0]], [[1.0]], [[0.1]]]]> : tensor<4x4x1x1xf32>
  %e = quant_qdq.conv2d "before_shared" %x, %w9 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %e1 = quant_qdq.conv2d "shares_weight" %e, %w10 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %e2 = quant_qdq.conv2d "shares_weight_too" %x, %w10 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  // A clip below 0.
  %w11 = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]], [[[8.0]], [[1.0]], [[1.0]], [[1.0]]], [[[0.5]], [[1.0]], [[1.0]], [[1.0]]], [[[1.0]], [[1.0]], [[1.0]], [[0.1]]]]> : tensor<4x4x1x1xf32>
  %w12 = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]], [[[8.0]], [[1.0]], [[1.0]], [[1.0]]], [[[0.5]], [[1.0]], [[1.0]], [[1.0]]], [[[1.0]], [[1.0]], [[1.0]], [[0.1]]]]> : tensor<4x4x1x1xf32>
  %f = quant_qdq.conv2d "before_clip" %x, %w11 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %fc = quant_qdq.activation clip "clip" %f {min = -1.0 : f32, max = 6.0 : f32} : tensor<1x4x4x4xf32>
  %f1 = quant_qdq.conv2d "after_clip" %fc, %w12 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  // NCHW channels are not the dense layer's.
  %w13 = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]], [[[8.0]], [[1.0]], [[1.0]], [[1.0]]], [[[0.5]], [[1.0]], [[1.0]], [[1.0]]], [[[1.0]], [[1.0]], [[1.0]], [[0.1]]]]> : tensor<4x4x1x1xf32>
  %wd = arith.constant dense<[[1.0, 9.0], [1.0, 1.0], [0.1, 1.0], [1.0, 1.0]]> : tensor<4x2xf32>
  %g = quant_qdq.conv2d "nchw" %x, %w13 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %g1 = quant_qdq.dense "reads_width" %g, %wd : (tensor<1x4x4x4xf32>, tensor<4x2xf32>) -> tensor<1x4x4x2xf32>
  // Two filters per channel: channel i feeds filters 2i and 2i+1.
  %w14 = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]], [[[8.0]], [[1.0]], [[1.0]], [[1.0]]], [[[0.5]], [[1.0]], [[1.0]], [[1.0]]], [[[1.0]], [[1.0]], [[1.0]], [[0.1]]]]> : tensor<4x4x1x1xf32>
  %w15 = arith.constant dense<[[[[1.0]]], [[[9.0]]], [[[2.0]]], [[[1.0]]], [[[1.0]]], [[[0.1]]], [[[4.0]]], [[[1.0]]]]> : tensor<8x1x1x1xf32>
  %h = quant_qdq.conv2d "before_multiplier" %x, %w14 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %h1 = quant_qdq.conv2d "multiplier" %h, %w15 {groups = 4 : i64} : (tensor<1x4x4x4xf32>, tensor<8x1x1x1xf32>) -> tensor<1x8x4x4xf32>
  return %a1, %a2, %b1, %c1, %d1, %e1, %e2, %f1, %g1, %h1 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x2xf32>, tensor<1x8x4x4xf32>
}
