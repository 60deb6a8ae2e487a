// What calibrate rejects, with where and why; exit status 1.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.ones((2, 4), np.float32)); np.save('%t/rank.npy', np.ones((2, 4, 1), np.float32)); np.save('%t/zero.npy', np.ones((0, 4), np.float32)); np.save('%t/int.npy', np.ones((2, 4), np.int32)); x = np.linspace(-2, 3, 8).reshape(2, 4); np.save('%t/f64.npy', x); np.save('%t/f32.npy', x.astype(np.float32))"
// RUN: printf 'TRT-8600-EntropyCalibration2\ninput_0: 3ca3d70a\n' > %t/partial.cache
// RUN: printf 'TRT-8600-EntropyCalibration2\ninput_0 3ca3d70a\n' > %t/malformed.cache
// RUN: printf 'x' > %t/garbage.json
// RUN: not qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy method=kl" 2>&1 | FileCheck %s --check-prefix=METHOD
// RUN: not qdq-opt %s --insert-qdq --calibrate 2>&1 | FileCheck %s --check-prefix=NODATA
// RUN: not qdq-opt %s --insert-qdq --calibrate="data=%t/empty" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not qdq-opt %s --insert-qdq --calibrate=%t/rank.npy 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not qdq-opt %s --insert-qdq --calibrate="load=%t/partial.cache" 2>&1 | FileCheck %s --check-prefix=PARTIAL
// RUN: not qdq-opt %s --insert-qdq --calibrate="load=%t/malformed.cache" 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not qdq-opt %s --insert-qdq --calibrate="load=%t/garbage.json" 2>&1 | FileCheck %s --check-prefix=GARBAGE
// RUN: not qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy bins=8" 2>&1 | FileCheck %s --check-prefix=BINS
// RUN: not qdq-opt %s --insert-qdq --calibrate=%t/zero.npy 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not qdq-opt %s --insert-qdq --calibrate=/dev/zero 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not qdq-opt %s --insert-qdq --calibrate=%t/int.npy 2>&1 | FileCheck %s --check-prefix=INT
// Floating-point data of another width is converted, as the Python API
// converts it: float64 data gives the float32 data's table.
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/f64.npy save=%t/f64.json" -o /dev/null
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/f32.npy save=%t/f32.json" -o /dev/null
// RUN: diff %t/f64.json %t/f32.json
// A static batch: max pads a short last batch with copies of its samples,
// which leave every range as it is (the data, all positive, would show
// padding by zeros in its minimum); histograms would count the copies, so
// entropy asks for a multiple of the batch before anything runs.
// RUN: %python -c "import numpy as np; x = np.linspace(1, 3, 12, dtype=np.float32).reshape(3, 4); np.save('%t/three.npy', x); np.save('%t/four.npy', x[[0, 1, 2, 2]])"
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/three.npy save=%t/three.json" -o /dev/null
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/four.npy save=%t/four.json" -o /dev/null
// RUN: diff %t/three.json %t/four.json
// RUN: FileCheck %s --check-prefix=PADDED < %t/three.json
// RUN: not qdq-opt %s --insert-qdq --calibrate="data=%t/three.npy method=entropy" 2>&1 | FileCheck %s --check-prefix=MULTIPLE
// Progress in a pipe or a log: one line as the model first compiles, which
// takes seconds on a network; the rest every 10 s (none in a run this short).
// RUN: qdq-opt %s --insert-qdq --calibrate=%t/f32.npy -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PROGRESS
// PROGRESS: calibration: compiling the model for input 2x4...
// PROGRESS-NOT: calibration

func.func @net(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<0.5> : tensor<4x3xf32>
  %r = quant_qdq.activation relu "relu" %x : tensor<2x4xf32>
  %y = quant_qdq.dense "fc" %r, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// METHOD: error: unknown calibration method 'kl' (expected max, percentile, entropy, mse, last-value, moving-average or auto)
// NODATA: error: calibrate needs data (--calibrate=<file.npy, file.npz or folder>) or a table to load (load=<file>)
// MISSING: error: {{.*}}empty: cannot read: No such file or directory
// PADDED: "min": 1
// MULTIPLE: error: the model takes batches of 2 but the calibration data holds 3 samples of this shape, not a multiple
// RANK: error: {{.*}}rank.npy: expected arrays of rank 2 (a batch of 'tensor<2x4xf32>' samples), got rank 3
// PARTIAL: errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: no calibration range for tensor 'relu_output_0'
// MALFORMED: malformed.cache:2:1: error: expected '<tensor>: <8 hex digits>'
// GARBAGE: garbage.json:1:1: error: malformed JSON
// BINS: error: bins must be in [256, 65536], got 8
// ZERO: error: {{.*}}zero.npy: holds no samples
// DEVICE: error: /dev/zero: not a regular file
// INT: error: {{.*}}int.npy: holds elements of type 'i32' but the model's input is 'tensor<2x4xf32>'
