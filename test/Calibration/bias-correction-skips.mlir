// qdq-bias-correction leaves a layer whose bias is quantized (no f32
// constant of its own) as it is, and says so.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.random.default_rng(1).standard_normal((4, 2, 4, 4)).astype(np.float32))"
// RUN: qdq-opt %s --qdq-bias-correction=%t/x.npy 2>&1 | FileCheck %s
// CHECK: warning: qdq-bias-correction leaves 1 layer(s) uncorrected, this one first: their bias is no f32 constant of their own (a quantized bias is not corrected)
// CHECK: warning: qdq-bias-correction found no convolution or dense layer with a quantized float weight
// CHECK: %[[BIAS:.*]] = quant_qdq.dequantize %{{.*}} <bits = 8> scale [1.000000e-02]
// CHECK: quant_qdq.conv2d "conv" %arg0, %{{.*}}, %[[BIAS]]

func.func @net(%x: tensor<?x2x4x4xf32>) -> tensor<?x2x4x4xf32> {
  %w = arith.constant dense<[[[[0.31]], [[-0.72]]], [[[0.55]], [[0.13]]]]> : tensor<2x2x1x1xf32>
  %wq = quant_qdq.quantize %w <bits = 8, axis = 0> : tensor<2x2x1x1xf32> -> tensor<2x2x1x1xi8>
  %wd = quant_qdq.dequantize %wq <bits = 8, axis = 0> : tensor<2x2x1x1xi8> -> tensor<2x2x1x1xf32>
  %b = arith.constant dense<[0.1, -0.2]> : tensor<2xf32>
  %bq = quant_qdq.quantize %b <bits = 8> scale [0.01] : tensor<2xf32> -> tensor<2xi8>
  %bd = quant_qdq.dequantize %bq <bits = 8> scale [0.01] : tensor<2xi8> -> tensor<2xf32>
  %y = quant_qdq.conv2d "conv" %x, %wd, %bd : (tensor<?x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  return %y : tensor<?x2x4x4xf32>
}
