// Entropy calibration against an independent NumPy statement of
// TensorRT's algorithm (Inputs/entropy_reference.py), on a ReLU output: half
// of the values are exactly 0 (the spike TensorRT discounts), the rest a
// half-normal with a heavier tail. The calibrator's amax must match the
// reference to a bin; counting the zeros' spike made it pick about a third
// of the reference's threshold.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(7); x = r.standard_normal((16, 2, 32, 32)) * np.where(r.random((16, 2, 32, 32)) < 0.01, 8.0, 1.0); np.save('%t/x.npy', x.astype(np.float32)); np.save('%t/relu.npy', np.maximum(x, 0).astype(np.float32))"
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=entropy save=%t/table.json" -o /dev/null
// RUN: %python %S/Inputs/entropy_reference.py %t/relu.npy %t/table.json act_output_0

func.func @net(%x: tensor<1x2x32x32xf32>) -> tensor<1x2x32x32xf32> {
  %w = arith.constant dense<[[[[1.0]], [[0.5]]], [[[0.25]], [[1.0]]]]> : tensor<2x2x1x1xf32>
  %a = quant_qdq.activation relu "act" %x : tensor<1x2x32x32xf32>
  %c = quant_qdq.conv2d "conv" %a, %w : (tensor<1x2x32x32xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x32x32xf32>
  return %c : tensor<1x2x32x32xf32>
}
