// A bf16 network calibrates as an f32 one does: its observed tensors are
// cast to f32 where they are produced, and their ranges and histograms
// computed there (until 2026-11-28 the host read their bf16 bytes as f32,
// and every amax was garbage). Each method against the NumPy reference, on
// the ReLU of the data rounded to bf16 (to nearest even, as the input's
// conversion does).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(7); x = (r.standard_normal((16, 2, 32, 32)) * np.where(r.random((16, 2, 32, 32)) < 0.01, 8.0, 1.0)).astype(np.float32); np.save('%t/x.npy', x); u = x.view(np.uint32).astype(np.uint64); u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000; np.save('%t/relu.npy', np.maximum(u.astype(np.uint32).view(np.float32), 0))"
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=max save=%t/max.json" -o /dev/null
// RUN: %python %S/Inputs/calibration_reference.py max %t/relu.npy %t/max.json act_output_0
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=percentile check-ranges=false save=%t/percentile.json" -o /dev/null
// RUN: %python %S/Inputs/calibration_reference.py percentile %t/relu.npy %t/percentile.json act_output_0
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=entropy check-ranges=false save=%t/entropy.json" -o /dev/null
// RUN: %python %S/Inputs/calibration_reference.py entropy %t/relu.npy %t/entropy.json act_output_0
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=mse check-ranges=false save=%t/mse.json" -o /dev/null
// RUN: %python %S/Inputs/calibration_reference.py mse %t/relu.npy %t/mse.json act_output_0
// The check of the histogram methods measures the bf16 outputs too.
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=percentile" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECKED
// CHECKED: warning: calibration: percentile's ranges give an output SQNR of {{[0-9.]+}} dB on 16 calibration samples

func.func @net(%x: tensor<1x2x32x32xbf16>) -> tensor<1x2x32x32xbf16> {
  %w = arith.constant dense<[[[[1.0]], [[0.5]]], [[[0.25]], [[1.0]]]]> : tensor<2x2x1x1xbf16>
  %a = quant_qdq.activation relu "act" %x : tensor<1x2x32x32xbf16>
  %c = quant_qdq.conv2d "conv" %a, %w : (tensor<1x2x32x32xbf16>, tensor<2x2x1x1xbf16>) -> tensor<1x2x32x32xbf16>
  return %c : tensor<1x2x32x32xbf16>
}
