func.func @net(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xi8> {
  %0 = quant_qdq.conv2d "conv" %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = quant_qdq.quantize %0 <bits = 8> scale [0.1] : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xi8>
  return %1 : tensor<1x4x6x6xi8>
}
