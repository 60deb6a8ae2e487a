// Calibration runs the only public function with a body, or the one named
// (the pass's `entry` option): with three candidates and no name it refuses,
// as with two (it used to take the third).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.ones((2, 4), np.float32))"
// RUN: not qdq-opt %s --insert-qdq --calibrate=%t/x.npy 2>&1 | FileCheck %s --check-prefix=SEVERAL
// SEVERAL: error: calibration needs one public function with a body, or --entry
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy entry=c" | FileCheck %s --check-prefix=NAMED
// NAMED-LABEL: func.func @c
// NAMED: quant_qdq.quantize %arg0 <bits = 8> scale [{{.*}}]

func.func @a(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = quant_qdq.activation relu "relu_a" %x : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
func.func @b(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = quant_qdq.activation relu "relu_b" %x : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
func.func @c(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<0.5> : tensor<4x3xf32>
  %y = quant_qdq.dense "fc" %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
