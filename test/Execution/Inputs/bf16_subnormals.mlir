func.func @main(%x: tensor<6xbf16>) -> tensor<6xbf16> {
  %y = quant_qdq.round_to_format %x <logarithmic> : tensor<6xbf16>
  return %y : tensor<6xbf16>
}
