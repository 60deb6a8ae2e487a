// A tensor whose first dimension is not the batch's ([sequence, batch,
// ...]; here a transposed activation, batch 6, first dimension 4) is
// counted as one histogram, not one per position; the amax is the same
// either way, and matches the NumPy reference (order does not matter to a
// histogram).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(5); x = (r.standard_normal((6, 4, 8, 8)) * np.where(r.random((6, 4, 8, 8)) < 0.02, 6.0, 1.0)).astype(np.float32); np.save('%t/x.npy', x); np.save('%t/relu.npy', np.maximum(x, 0))"
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=percentile check-ranges=false save=%t/percentile.json" -o /dev/null
// RUN: %python %S/Inputs/calibration_reference.py percentile %t/relu.npy %t/percentile.json act_output_0
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=entropy check-ranges=false save=%t/entropy.json" -o /dev/null
// RUN: %python %S/Inputs/calibration_reference.py entropy %t/relu.npy %t/entropy.json act_output_0
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=mse check-ranges=false save=%t/mse.json" -o /dev/null
// RUN: %python %S/Inputs/calibration_reference.py mse %t/relu.npy %t/mse.json act_output_0
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=max save=%t/max.json" -o /dev/null
// RUN: %python %S/Inputs/calibration_reference.py max %t/relu.npy %t/max.json act_output_0

func.func @net(%x: tensor<6x4x8x8xf32>) -> tensor<4x2x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<2x6x1x1xf32>
  %t = quant_qdq.transpose "swap" %x {perm = array<i64: 1, 0, 2, 3>} : (tensor<6x4x8x8xf32>) -> tensor<4x6x8x8xf32>
  %a = quant_qdq.activation relu "act" %t : tensor<4x6x8x8xf32>
  %c = quant_qdq.conv2d "conv" %a, %w : (tensor<4x6x8x8xf32>, tensor<2x6x1x1xf32>) -> tensor<4x2x8x8xf32>
  return %c : tensor<4x2x8x8xf32>
}
