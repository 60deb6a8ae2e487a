// A two-layer MLP for the format tests: a Gemm-like dense with its weight
// stored [N, K] (transposed) and a MatMul-like one stored [K, N].
func.func @mlp(%x: tensor<2x256xf32>) -> tensor<2x16xf32> {
  %w1 = arith.constant dense<0.25> : tensor<64x256xf32>
  %w2 = arith.constant dense<0.5> : tensor<64x16xf32>
  %h = quant_qdq.dense "fc1" %x, %w1 {transpose_weight} : (tensor<2x256xf32>, tensor<64x256xf32>) -> tensor<2x64xf32>
  %r = quant_qdq.activation relu "relu" %h : tensor<2x64xf32>
  %y = quant_qdq.dense "fc2" %r, %w2 : (tensor<2x64xf32>, tensor<64x16xf32>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}
