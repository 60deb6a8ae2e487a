// A dynamic batch without batch-size: one sample per thread (at least 4),
// or up to twice that where it divides the samples, so that no shorter
// last batch compiles a shape of its own; 32 (TFMOT's batches) where a
// per-batch method's range is asked for. Batches run across files. Where
// the ranges are computed in the graph (max, last-value, moving-average),
// a short last batch is padded with copies of its samples instead of
// compiling a shape of its own; histograms, which would count the copies,
// run it as it is, and their second pass compiles a function of its own
// (the histograms, at the bins the first pass's ranges set). Each compiled
// shape is announced on stderr.
// RUN: rm -rf %t && mkdir -p %t/parts
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.random.RandomState(0).rand(16, 2, 2, 2).astype(np.float32))"
// RUN: %python -c "import numpy as np; x = np.random.RandomState(1).rand(17, 2, 2, 2).astype(np.float32); np.save('%t/parts/a.npy', x[:10]); np.save('%t/parts/b.npy', x[10:])"
// 17 samples in two files, no divisor of 17 from 4 to 8: batches of 4
// across the files, the last one padded.
// RUN: env OMP_NUM_THREADS=2 qdq-opt %s --insert-qdq --calibrate=%t/parts -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARTS
// RUN: env OMP_NUM_THREADS=2 qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy batch-size=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FIVE
// RUN: env OMP_NUM_THREADS=2 qdq-opt %s --insert-qdq --calibrate="data=%t/parts check-ranges=false" --calibration-method=entropy -o /dev/null 2>&1 | FileCheck %s --check-prefix=ENTROPY
// RUN: env OMP_NUM_THREADS=2 qdq-opt %s --insert-qdq --calibrate=%t/x.npy -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: env OMP_NUM_THREADS=6 qdq-opt %s --insert-qdq --calibrate=%t/x.npy -o /dev/null 2>&1 | FileCheck %s --check-prefix=SIX
// RUN: env OMP_NUM_THREADS=2 qdq-opt %s --insert-qdq --calibrate=%t/x.npy --calibration-method=last-value -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAST
// RUN: not qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy batch-size=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// TWO: compiling the model for input 4x2x2x2
// TWO-NOT: compiling
// SIX: compiling the model for input 8x2x2x2
// SIX-NOT: compiling
// LAST: compiling the model for input 16x2x2x2
// LAST-NOT: compiling
// PARTS: compiling the model for input 4x2x2x2
// PARTS-NOT: compiling
// FIVE: compiling the model for input 5x2x2x2
// FIVE-NOT: compiling
// ENTROPY: calibration (ranges): compiling the model for input 4x2x2x2
// ENTROPY: calibration (ranges): compiling the model for input 1x2x2x2
// ENTROPY: calibration (histograms): compiling the model for input 4x2x2x2
// ENTROPY: calibration (histograms): compiling the model for input 1x2x2x2
// ENTROPY-NOT: compiling
// NEGATIVE: error: batch-size must be positive, or 0 to let calibration choose; got -1

func.func @net(%x: tensor<?x2x2x2xf32>) -> tensor<?x2x2x2xf32> {
  %w = arith.constant dense<[[[[1.0]], [[0.0]]], [[[0.0]], [[1.0]]]]> : tensor<2x2x1x1xf32>
  %c = quant_qdq.conv2d "conv" %x, %w : (tensor<?x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<?x2x2x2xf32>
  return %c : tensor<?x2x2x2xf32>
}
