// A network with Q/DQ pairs but no scales yet cannot run: the message says
// where and what to do.
// RUN: %python -c "import numpy as np; np.save('%t.npy', np.ones((1, 4, 8, 8), np.float32))"
// RUN: qdq-opt %qdq_src_root/test/Transforms/InsertQDQ/Inputs/block.mlir --insert-qdq -o %t.mlir
// RUN: not qdq-run %t.mlir --input %t.npy 2>&1 | FileCheck %s
// CHECK: error: 'quant_qdq.quantize' op has no scale: calibrate the model, or set scales, before lowering
