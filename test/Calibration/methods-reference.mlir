// Each calibration method against an independent NumPy statement of it
// (Inputs/calibration_reference.py), on a ReLU output: half of the values
// are exactly 0 (the spike TensorRT's entropy calibration discounts), the
// rest a half-normal with a heavier tail. Every amax must match its
// reference to a bin. (Counting the zeros' spike once made entropy pick
// 2.99 where the algorithm picks 18.5.) Then entropy on a band far from 0,
// where the KL threshold would clip everything and the 99th percentile
// bounds it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(7); x = r.standard_normal((16, 2, 32, 32)) * np.where(r.random((16, 2, 32, 32)) < 0.01, 8.0, 1.0); np.save('%t/x.npy', x.astype(np.float32)); np.save('%t/relu.npy', np.maximum(x, 0).astype(np.float32))"
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=max save=%t/max.json" -o /dev/null
// RUN: %python %S/Inputs/calibration_reference.py max %t/relu.npy %t/max.json act_output_0
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=percentile check-ranges=false save=%t/percentile.json" -o /dev/null
// RUN: %python %S/Inputs/calibration_reference.py percentile %t/relu.npy %t/percentile.json act_output_0
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=entropy check-ranges=false save=%t/entropy.json" -o /dev/null
// RUN: %python %S/Inputs/calibration_reference.py entropy %t/relu.npy %t/entropy.json act_output_0
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=mse check-ranges=false save=%t/mse.json" -o /dev/null
// RUN: %python %S/Inputs/calibration_reference.py mse %t/relu.npy %t/mse.json act_output_0
// Entropy and mse search for the quantizer's grid: 8 buckets and 7 levels
// for int4, a smaller amax than int8's.
// RUN: qdq-opt %s --insert-qdq=activation-bits=4 --calibrate="data=%t/x.npy method=entropy check-ranges=false save=%t/entropy4.json" -o /dev/null
// RUN: %python %S/Inputs/calibration_reference.py entropy %t/relu.npy %t/entropy4.json act_output_0 4
// RUN: qdq-opt %s --insert-qdq=activation-bits=4 --calibrate="data=%t/x.npy method=mse check-ranges=false save=%t/mse4.json" -o /dev/null
// RUN: %python %S/Inputs/calibration_reference.py mse %t/relu.npy %t/mse4.json act_output_0 4
// RUN: %python -c "import numpy as np; np.save('%t/band.npy', np.random.default_rng(3).uniform(0.35, 1.36, (16, 2, 32, 32)).astype(np.float32))"
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/band.npy method=entropy check-ranges=false save=%t/band.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: %python %S/Inputs/calibration_reference.py entropy %t/band.npy %t/band.json act_output_0
// BOUND: warning: entropy calibration of 'act_output_0' would clip {{[0-9.]+}}% of its values (amax {{.*}}); using the 99th percentile, amax

func.func @net(%x: tensor<1x2x32x32xf32>) -> tensor<1x2x32x32xf32> {
  %w = arith.constant dense<[[[[1.0]], [[0.5]]], [[[0.25]], [[1.0]]]]> : tensor<2x2x1x1xf32>
  %a = quant_qdq.activation relu "act" %x : tensor<1x2x32x32xf32>
  %c = quant_qdq.conv2d "conv" %a, %w : (tensor<1x2x32x32xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x32x32xf32>
  return %c : tensor<1x2x32x32xf32>
}
