// A dynamic batch takes the batch of the given arrays: qdq-run compiles the
// function for it (a regression test: the signature kept the dynamic type
// while the body was specialized, and the verifier rejected the function).
// RUN: %python -c "import numpy as np; np.save('%t.npy', np.arange(12, dtype=np.float32).reshape(3, 4) - 6)"
// RUN: qdq-run %s --input %t.npy | FileCheck %s
// RUN: %python -c "import numpy as np; np.save('%t.5.npy', np.ones((5, 4), np.float32))"
// RUN: qdq-run %s --input %t.5.npy | FileCheck %s --check-prefix=FIVE

func.func @net(%x: tensor<?x4xf32>) -> tensor<?x2xf32> {
  %w = arith.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]> : tensor<4x2xf32>
  %r = quant_qdq.activation relu "relu" %x : tensor<?x4xf32>
  %y = quant_qdq.dense "fc" %r, %w : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// relu([-6..-3]) = 0, relu([-2,-1,0,1]) -> [0,0,0,1], relu([2..5]):
// rows give [x0 + x2, x1 + x3].
// CHECK: output #0: tensor<3x2xf32> [0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 6.000000e+00, 8.000000e+00]
// FIVE: output #0: tensor<5x2xf32> [2.000000e+00, 2.000000e+00,
