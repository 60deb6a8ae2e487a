// Weight scales start from the smallest scale that fits the group into the
// quantizer's range: with the full signed range (what weight-format=int4
// gives), the side of the larger magnitude may take -8. A weight quantizer
// with `calibration = mse` (weight-scale=mse) then clips it by the factor of
// least squared rounding error.

// RUN: qdq-opt %s --qdq-weight-scales | FileCheck %s

// [1, -2, 0.5, 0.25]: -2 / -8 = 0.25 represents every value exactly; the
// narrow range needs 2 / 7.
func.func @full_range(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %w = arith.constant dense<[1.0, -2.0, 0.5, 0.25]> : tensor<4xf32>
  %q = quant_qdq.quantize %w <bits = 4, narrow_range = false, calibration = mse> : tensor<4xf32> -> tensor<4xi4>
  %dq = quant_qdq.dequantize %q <bits = 4, narrow_range = false, calibration = mse> : tensor<4xi4> -> tensor<4xf32>
  %n = quant_qdq.quantize %w <bits = 4> : tensor<4xf32> -> tensor<4xi4>
  %ndq = quant_qdq.dequantize %n <bits = 4> : tensor<4xi4> -> tensor<4xf32>
  %f = quant_qdq.quantize %w <bits = 4, narrow_range = false> : tensor<4xf32> -> tensor<4xi4>
  %fdq = quant_qdq.dequantize %f <bits = 4, narrow_range = false> : tensor<4xi4> -> tensor<4xf32>
  return %dq, %ndq, %fdq : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @full_range
// CHECK: quant_qdq.quantize %{{.*}} calibration = mse> scale [2.500000e-01]
// CHECK: quant_qdq.quantize %{{.*}} <bits = 4> scale [2.857143e-01]
// CHECK: quant_qdq.quantize %{{.*}} narrow_range = false> scale [2.500000e-01]

// One 1.0 among 63 values of 0.1: clipping the 1.0 to 7 x 0.12 costs less
// than rounding 63 values on the grid of 1 / 7 (errors 0.051 against 0.116;
// 0.96, 0.92, 0.88 and 0.8 give 0.088, 0.069, 0.056 and 0.053). Without
// mse, the unclipped 1 / 7.
func.func @clipped(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %w = arith.constant dense<[1.0, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]> : tensor<64xf32>
  %q = quant_qdq.quantize %w <bits = 4, narrow_range = false, calibration = mse> : tensor<64xf32> -> tensor<64xi4>
  %dq = quant_qdq.dequantize %q <bits = 4, narrow_range = false, calibration = mse> : tensor<64xi4> -> tensor<64xf32>
  %m = quant_qdq.quantize %w <bits = 4, narrow_range = false> : tensor<64xf32> -> tensor<64xi4>
  %mdq = quant_qdq.dequantize %m <bits = 4, narrow_range = false> : tensor<64xi4> -> tensor<64xf32>
  return %dq, %mdq : tensor<64xf32>, tensor<64xf32>
}
// CHECK-LABEL: func.func @clipped
// CHECK: quant_qdq.quantize %{{.*}} calibration = mse> scale [1.200000e-01]
// CHECK: quant_qdq.quantize %{{.*}} narrow_range = false> scale [1.428571e-01]
