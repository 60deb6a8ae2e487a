// RUN: qdq-opt %s --verify-diagnostics --qdq-to-quant

// An uncalibrated quantizer has no type to become (qdq-to-quant only).
func.func @no_scale(%x: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error@+1 {{has no scale: calibrate the model, or set scales, before converting to upstream quant types}}
  %q = quant_qdq.quantize %x <bits = 8> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

