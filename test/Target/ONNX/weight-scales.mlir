// qdq-weight-scales gives uncalibrated weight Q/DQ the per-channel scales
// max|w| / qmax of their constant (a zero channel gets 1), leaves activation
// Q/DQ alone unless activation-amax is set, and never touches calibrated
// ones.

// RUN: qdq-opt %s --qdq-weight-scales | FileCheck %s
// RUN: qdq-opt %s --qdq-weight-scales=activation-amax=12.7 2>&1 | FileCheck %s --check-prefix=AMAX

func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense<[[[[1.0]], [[-2.0]]], [[[0.0]], [[0.0]]]]> : tensor<2x2x1x1xf32>
  %q = quant_qdq.quantize %x <bits = 8> : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xi8>
  %dq = quant_qdq.dequantize %q <bits = 8> : tensor<1x2x4x4xi8> -> tensor<1x2x4x4xf32>
  %wq = quant_qdq.quantize %w <bits = 8, axis = 0> : tensor<2x2x1x1xf32> -> tensor<2x2x1x1xi8>
  %wdq = quant_qdq.dequantize %wq <bits = 8, axis = 0> : tensor<2x2x1x1xi8> -> tensor<2x2x1x1xf32>
  %fixed = quant_qdq.fake_quant %wdq <bits = 8> scale [0.5] : tensor<2x2x1x1xf32>
  %y = quant_qdq.conv2d "conv" %dq, %fixed : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// CHECK: %[[Q:.*]] = quant_qdq.quantize %arg0 <bits = 8> : tensor<1x2x4x4xf32>
// CHECK: quant_qdq.dequantize %[[Q]] <bits = 8> : tensor<1x2x4x4xi8>
// CHECK: %[[WQ:.*]] = quant_qdq.quantize %{{.*}} <bits = 8, axis = 0> scale [1.574803e-02, 1.000000e+00]
// CHECK: quant_qdq.dequantize %[[WQ]] <bits = 8, axis = 0> scale [1.574803e-02, 1.000000e+00]
// CHECK: quant_qdq.fake_quant %{{.*}} <bits = 8> scale [5.000000e-01]

// AMAX: warning: activations are uncalibrated
// AMAX: quant_qdq.quantize %arg0 <bits = 8> scale [1.000000e-01]
