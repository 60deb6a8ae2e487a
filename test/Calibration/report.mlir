// The calibration report puts the four methods side by side per tensor:
// amax, the share of values it clips, the method used (*), and a note where
// a method clips far more than the others (over 1% of the values and ten
// times the others' median); the method used gets a warning when it is
// that one. Data: a sigmoid-gate-like tensor, values near 0.5.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; rng = np.random.RandomState(0); np.save('%t/x.npy', np.clip(rng.normal(0.5, 0.02, (16, 4, 8, 8)), 0, 1).astype(np.float32))"

// Entropy, bounded where KL clips too much: not an outlier.
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy check-ranges=false" --calibration-method=entropy --calibration-report=%t/entropy.txt -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=ENTROPY < %t/entropy.txt
// ENTROPY: tensor       max                     percentile              entropy                 mse                     last-value              moving-average          note
// ENTROPY-NEXT: act_output_0 0.58 (0.00%)            0.58 (0.00%)            0.55 (0.98%)*           0.57 (0.02%)            0.55 (0.39%)            0.55 (0.66%)            entropy bounded (KL amax 0.43)
// ENTROPY-NEXT: 1 tensors; * the method used (entropy); 0 method choices clip far more

// A 90th percentile clips 10%: flagged, and a warning since it is used.
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy percentile=90 check-ranges=false" --calibration-method=percentile --calibration-report=%t/p90.txt -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
// WARN: warning: percentile calibration of 'act_output_0' clips 9.9% of its values; the other methods clip 0.39% (median)
// RUN: FileCheck %s --check-prefix=P90 < %t/p90.txt
// P90: act_output_0 {{.*}} 0.53 (9.86%)* {{.*}} percentile clips far more
// P90: 1 method choices clip far more

// The same through qdq-quantize; a report needs data, not a loaded table.
// RUN: qdq-opt %s --qdq-quantize="data=%t/x.npy calibration-report=%t/q.txt" -o /dev/null
// RUN: FileCheck %s --check-prefix=QUANTIZE < %t/q.txt
// QUANTIZE: act_output_0 0.58 (0.00%)*
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy save=%t/t.json" -o /dev/null
// RUN: not qdq-opt %s --insert-qdq --calibrate="load=%t/t.json report=%t/r.txt" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=LOAD
// RUN: not test -e %t/r.txt
// LOAD: error: a calibration report compares the methods on data; a loaded table has none

func.func @net(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = arith.constant dense<0.1> : tensor<4x4x1x1xf32>
  %r = quant_qdq.activation relu "act" %x : tensor<1x4x8x8xf32>
  %c = quant_qdq.conv2d "conv" %r, %w : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %c : tensor<1x4x8x8xf32>
}
