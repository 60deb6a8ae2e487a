func.func @good(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quant_qdq.activation relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @bad(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quant_qdq.dropout %x {rate = 1.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
