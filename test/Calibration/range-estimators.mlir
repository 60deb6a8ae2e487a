// TFMOT's range estimators as calibration methods: three runs of one
// sample, whose ranges are [0, 1], [-4, 3] and [0, 0.5].
// - max ("all values"): amax 4, scale 4 / 127;
// - last-value: the last run's range, amax 0.5;
// - moving-average (decay 0.5 here, TFMOT's 0.999 by default): starts at
//   the first run's [0, 1], then [-2, 2], then [-1, 1.25]: amax 1.25.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; x = np.zeros((3, 2, 2, 2), np.float32); x[0, 0, 0, 0] = 1; x[1, 0, 0, 0] = -4; x[1, 1, 1, 1] = 3; x[2, 0, 0, 0] = 0.5; np.save('%t/x.npy', x)"
// RUN: qdq-opt %s --insert-qdq --calibrate=%t/x.npy | FileCheck %s --check-prefix=MAX
// RUN: qdq-opt %s --insert-qdq --calibrate=%t/x.npy --calibration-method=last-value | FileCheck %s --check-prefix=LAST
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy decay=0.5" --calibration-method=moving-average | FileCheck %s --check-prefix=EMA
// RUN: not qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy decay=1" --calibration-method=moving-average 2>&1 | FileCheck %s --check-prefix=DECAY
// MAX: quant_qdq.quantize %arg0 <bits = 8> scale [3.149606e-02]
// LAST: quant_qdq.quantize %arg0 <bits = 8> scale [3.937008e-03]
// EMA: quant_qdq.quantize %arg0 <bits = 8> scale [9.842520e-03]
// DECAY: error: moving-average decay must be in [0, 1), got 1

func.func @net(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = arith.constant dense<[[[[1.0]], [[0.0]]], [[[0.0]], [[1.0]]]]> : tensor<2x2x1x1xf32>
  %c = quant_qdq.conv2d "conv" %x, %w : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  return %c : tensor<1x2x2x2xf32>
}
