// A softmax bounds its output to [0, 1], so the quantizer of its output
// takes amax 1 (scale 1/127), not the largest probability the data shows:
// here every probability is 1/8, which max calibration would make the
// amax, clipping any larger one met later.
// RUN: rm -rf %t && mkdir %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.full((2, 8), 0.5, np.float32))"
// RUN: qdq-opt %s --insert-qdq --calibrate=%t/x.npy --calibration-report=%t/report.txt | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t/report.txt

func.func @main(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %w = arith.constant dense<0.5> : tensor<8x4xf32>
  %p = quant_qdq.softmax "probs" %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = quant_qdq.dense "fc" %p, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// CHECK: %[[P:.*]] = quant_qdq.softmax "probs"
// CHECK: quant_qdq.quantize %[[P]] <bits = 8> scale [7.874016e-03]
// CHECK: quant_qdq.dense "fc"

// REPORT: probs_output_0 {{.*}}range fixed by its layer (amax 1.00)
