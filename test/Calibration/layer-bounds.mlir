// A softmax bounds its output to [0, 1]. The quantizer of its output takes
// the largest probability seen (never more than 1), whatever the method:
// attention's rare peaks are its signal, which a clipping method would
// cut, and its typical values need more resolution than amax 1 leaves.
// RUN: rm -rf %t && mkdir %t
// Every probability 1/8: amax 1/8 (scale 1/1016), not 1.
// RUN: %python -c "import numpy as np; np.save('%t/flat.npy', np.full((2, 8), 0.5, np.float32))"
// RUN: qdq-opt %s --insert-qdq --calibrate=%t/flat.npy --calibration-report=%t/report.txt | FileCheck %s --check-prefix=FLAT
// RUN: FileCheck %s --check-prefix=REPORT < %t/report.txt
// 63 flat rows and one with a peak of 0.99968: the 99th percentile would
// clip the peak; the softmax keeps it.
// RUN: %python -c "import numpy as np; x = np.zeros((64, 8), np.float32); x[5, 3] = 10; np.save('%t/peak.npy', x)"
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/peak.npy method=percentile percentile=99" | FileCheck %s --check-prefix=PEAK

func.func @main(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %w = arith.constant dense<0.5> : tensor<8x4xf32>
  %p = quant_qdq.softmax "probs" %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = quant_qdq.dense "fc" %p, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// FLAT: %[[P:.*]] = quant_qdq.softmax "probs"
// FLAT: quant_qdq.quantize %[[P]] <bits = 8> scale [9.842520e-04]
// FLAT: quant_qdq.dense "fc"

// REPORT: probs_output_0 {{.*}}largest value, within its layer's bound (amax 0.12)

// PEAK: quant_qdq.quantize %{{.*}} <bits = 8> scale [7.871513e-03]
