func.func @f(%x: tensor<4xf32>) -> tensor<4xi8> {
  // A quantize op, cut after its scale.
  %q = quant_qdq.quantize %x <bits = 8> scale [0.1]