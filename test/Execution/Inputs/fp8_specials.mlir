// FP8 (e4m3fn) fake quantization (f32 and bf16), a quantize/dequantize
// pair, and a quantize, for fp8-special-values.test.
func.func @fake_quant(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = quant_qdq.fake_quant %x <bits = 8, storage = e4m3fn> scale [0.0235] : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @fake_quant_bf16(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %y = quant_qdq.fake_quant %x <bits = 8, storage = e4m3fn> scale [0.0235] : tensor<8xbf16>
  return %y : tensor<8xbf16>
}

func.func @pair(%x: tensor<8xf32>) -> tensor<8xf32> {
  %q = quant_qdq.quantize %x <bits = 8, storage = e4m3fn> scale [0.0235] : tensor<8xf32> -> tensor<8xf8E4M3FN>
  %d = quant_qdq.dequantize %q <bits = 8, storage = e4m3fn> scale [0.0235] : tensor<8xf8E4M3FN> -> tensor<8xf32>
  return %d : tensor<8xf32>
}

func.func @quantize(%x: tensor<8xf32>) -> tensor<8xf8E4M3FN> {
  %q = quant_qdq.quantize %x <bits = 8, storage = e4m3fn> scale [0.0235] : tensor<8xf32> -> tensor<8xf8E4M3FN>
  return %q : tensor<8xf8E4M3FN>
}
