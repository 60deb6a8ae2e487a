// RUN: qdq-opt %s --qdq-equalize --split-input-file | FileCheck %s

// One pair through relu6: a's channel ranges [4, 1], b's [1, 4], so
// s = sqrt(r1 / r2) = [2, 0.5]: a's weight and bias are divided by s, b's
// input channels multiplied by s, and relu6 becomes relu then the minimum
// 6 / s = [3, 12]. Every range is then 2; a second sweep changes nothing.
// CHECK-LABEL: func.func @relu6_pair
// CHECK-DAG: %[[WA:.*]] = arith.constant dense_resource<a_equalized_weight> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[BA:.*]] = arith.constant dense_resource<a_equalized_bias> : tensor<2xf32>
// CHECK-DAG: %[[WB:.*]] = arith.constant dense_resource<b_equalized_weight> : tensor<1x2x1x1xf32>
// CHECK: %[[A:.*]] = quant_qdq.conv2d "a" %arg0, %[[WA]], %[[BA]]
// CHECK: %[[R:.*]] = quant_qdq.activation relu "r" %[[A]] : tensor<1x2x3x3xf32>
// CHECK: %[[BOUND:.*]] = arith.constant dense_resource<r_equalized_bound> : tensor<1x2x1x1xf32>
// CHECK: %[[M:.*]] = quant_qdq.generic "Min" "r_bound" %[[R]], %[[BOUND]]
// CHECK: quant_qdq.conv2d "b" %[[M]], %[[WB]]
// Little-endian f32 after a 4-byte alignment header: 2, 2; 1, 2; 2, 2;
// 3, 12.
// CHECK-DAG: a_equalized_weight: "0x040000000000004000000040"
// CHECK-DAG: a_equalized_bias: "0x040000000000803F00000040"
// CHECK-DAG: b_equalized_weight: "0x040000000000004000000040"
// CHECK-DAG: r_equalized_bound: "0x040000000000404000004041"
func.func @relu6_pair(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %wa = arith.constant dense<[[[[4.0]]], [[[1.0]]]]> : tensor<2x1x1x1xf32>
  %ba = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %wb = arith.constant dense<[[[[1.0]], [[4.0]]]]> : tensor<1x2x1x1xf32>
  %a = quant_qdq.conv2d "a" %x, %wa, %ba : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %r = quant_qdq.activation relu6 "r" %a : tensor<1x2x3x3xf32>
  %b = quant_qdq.conv2d "b" %r, %wb : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x3x3xf32>
  return %b : tensor<1x1x3x3xf32>
}

// -----

// A depthwise convolution between two pointwise ones (MobileNet's block)
// takes part in both pairs; dense layers through leaky_relu pair too. The
// homogeneous activations stay as they are.
// CHECK-LABEL: func.func @chains
// CHECK-DAG: dense_resource<expand_equalized_weight>
// CHECK-DAG: dense_resource<dw_equalized_weight>
// CHECK-DAG: dense_resource<dw_equalized_bias>
// CHECK-DAG: dense_resource<project_equalized_weight>
// CHECK: quant_qdq.activation relu "r1"
// CHECK-NEXT: quant_qdq.conv2d "dw"
// CHECK-NEXT: quant_qdq.activation relu "r2"
// CHECK-NEXT: quant_qdq.conv2d "project"
// CHECK-DAG: dense_resource<fc1_equalized_weight>
// CHECK-DAG: dense_resource<fc2_equalized_weight>
// CHECK: quant_qdq.activation leaky_relu "lr"
// CHECK-NEXT: quant_qdq.dense "fc2"
// CHECK-NOT: quant_qdq.generic
func.func @chains(%x: tensor<1x2x4x4xf32>, %v: tensor<1x3xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2xf32>) {
  %we = arith.constant dense<[[[[1.0]], [[2.0]]], [[[8.0]], [[1.0]]], [[[0.5]], [[0.25]]]]> : tensor<3x2x1x1xf32>
  %wd = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[0.1, 0.2], [0.3, 0.4]]], [[[9.0, 1.0], [1.0, 1.0]]]]> : tensor<3x1x2x2xf32>
  %bd = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %wp = arith.constant dense<[[[[1.0]], [[1.0]], [[5.0]]], [[[2.0]], [[0.5]], [[1.0]]]]> : tensor<2x3x1x1xf32>
  %e = quant_qdq.conv2d "expand" %x, %we : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %r1 = quant_qdq.activation relu "r1" %e : tensor<1x3x4x4xf32>
  %d = quant_qdq.conv2d "dw" %r1, %wd, %bd {groups = 3 : i64, pads = array<i64: 1, 1, 0, 0>} : (tensor<1x3x4x4xf32>, tensor<3x1x2x2xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %r2 = quant_qdq.activation relu "r2" %d : tensor<1x3x4x4xf32>
  %p = quant_qdq.conv2d "project" %r2, %wp : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %w1 = arith.constant dense<[[1.0, 10.0], [2.0, 0.1], [3.0, 1.0]]> : tensor<3x2xf32>
  %w2 = arith.constant dense<[[1.0, 2.0], [0.01, 0.02]]> : tensor<2x2xf32>
  %h = quant_qdq.dense "fc1" %v, %w1 : (tensor<1x3xf32>, tensor<3x2xf32>) -> tensor<1x2xf32>
  %lr = quant_qdq.activation leaky_relu "lr" %h : tensor<1x2xf32>
  %y = quant_qdq.dense "fc2" %lr, %w2 : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %p, %y : tensor<1x2x4x4xf32>, tensor<1x2xf32>
}
