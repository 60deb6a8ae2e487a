// parallel-compile.test: a call to a function that nothing defines.
func.func private @qdq_test_nowhere(f32) -> f32
func.func @main(%x: tensor<1x3x32x32xf32>) -> tensor<1x3x32x32xf32> {
  %c = arith.constant 1.0 : f32
  %v = call @qdq_test_nowhere(%c) : (f32) -> f32
  %r = linalg.fill ins(%v : f32) outs(%x : tensor<1x3x32x32xf32>) -> tensor<1x3x32x32xf32>
  return %r : tensor<1x3x32x32xf32>
}
