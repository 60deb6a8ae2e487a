// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// FP8 quantizers are 8-bit, signed and symmetric, and store f8E4M3FN.

func.func @four_bits(%x: tensor<4xf32>) {
  // expected-error @+1 {{an e4m3fn quantizer is 8-bit, signed and symmetric}}
  %y = quant_qdq.fake_quant %x <bits = 4, storage = e4m3fn> : tensor<4xf32>
  return
}

// -----

func.func @asymmetric(%x: tensor<4xf32>) {
  // expected-error @+1 {{an e4m3fn quantizer is 8-bit, signed and symmetric}}
  %y = quant_qdq.fake_quant %x <bits = 8, symmetric = false, storage = e4m3fn> : tensor<4xf32>
  return
}

// -----

func.func @integer_storage(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op storage element type 'i8' does not match the e4m3fn quantizer ('f8E4M3FN' expected)}}
  %q = quant_qdq.quantize %x <bits = 8, storage = e4m3fn> scale [1.0] : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

func.func @fp8_storage_for_int(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op storage element type 'f8E4M3FN' does not match the 8-bit quantizer}}
  %q = quant_qdq.quantize %x <bits = 8> scale [1.0] : tensor<4xf32> -> tensor<4xf8E4M3FN>
  return
}
