// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// quant_qdq.quantize: operand and result types.

func.func @storage_width(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op storage element type 'i8' does not match the 4-bit quantizer}}
  %y = quant_qdq.quantize %x <bits = 4> scale [1.0] : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

func.func @storage_width_16(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op storage element type 'i8' does not match the 16-bit quantizer}}
  %y = quant_qdq.quantize %x <bits = 16> : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

// Storage is signless: signedness lives in the quantizer.
func.func @signed_storage(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op result #0 must be ranked tensor of signless integer or f8E4M3FN type values, but got 'tensor<4xsi8>'}}
  %y = quant_qdq.quantize %x <bits = 8> : tensor<4xf32> -> tensor<4xsi8>
  return
}

// -----

func.func @unsigned_storage(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op result #0 must be ranked tensor of signless integer or f8E4M3FN type values, but got 'tensor<4xui8>'}}
  %y = quant_qdq.quantize %x <bits = 8, is_signed = false> : tensor<4xf32> -> tensor<4xui8>
  return
}

// -----

func.func @float_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op result #0 must be ranked tensor of signless integer or f8E4M3FN type values, but got 'tensor<4xf32>'}}
  %y = quant_qdq.quantize %x <bits = 8> : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @integer_input(%x: tensor<4xi32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4xi32>'}}
  %y = quant_qdq.quantize %x <bits = 8> : tensor<4xi32> -> tensor<4xi8>
  return
}

// -----

func.func @shape_mismatch(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{'quant_qdq.quantize' op requires the same shape for all operands and results}}
  %y = quant_qdq.quantize %x <bits = 8> : tensor<4x2xf32> -> tensor<2x4xi8>
  return
}

// -----

func.func @unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %y = quant_qdq.quantize %x <bits = 8> : tensor<*xf32> -> tensor<*xi8>
  return
}
