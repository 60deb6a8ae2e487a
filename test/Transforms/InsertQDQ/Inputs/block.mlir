// A small network the spec tests share: named layers of several classes.
func.func @net(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %w1 = arith.constant dense<0.1> : tensor<4x4x3x3xf32>
  %w2 = arith.constant dense<0.1> : tensor<4x4x3x3xf32>
  %c1 = quant_qdq.conv2d "block1_conv" %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %c2 = quant_qdq.conv2d "block2_conv" %c1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %s = quant_qdq.add "block2_add" %c2, %c1 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = quant_qdq.avg_pool2d "pool" %s {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %p : tensor<1x4x4x4xf32>
}
