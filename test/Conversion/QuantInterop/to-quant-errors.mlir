// RUN: qdq-opt %s --split-input-file --verify-diagnostics --qdq-to-quant

// An uncalibrated quantizer has no type to become (qdq-to-quant only).
func.func @no_scale(%x: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error@+1 {{has no scale: calibrate the model, or set scales, before converting to upstream quant types}}
  %q = quant_qdq.quantize %x <bits = 8> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}


// -----

// FP8 has no !quant.uniform form here.
func.func @fp8(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{FP8 quantizers do not convert to upstream quant types}}
  %y = quant_qdq.fake_quant %x <bits = 8, storage = e4m3fn> scale [1.0] : tensor<4xf32>
  return %y : tensor<4xf32>
}
