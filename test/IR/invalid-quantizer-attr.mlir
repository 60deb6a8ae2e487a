// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// #quant_qdq.quantizer parameters, checked when the attribute is built.

func.func @one_bit(%x: tensor<4xf32>) {
  // expected-error @+1 {{quantizer bit width must be in [2, 16], got 1}}
  %y = quant_qdq.fake_quant %x <bits = 1> : tensor<4xf32>
  return
}

// -----

func.func @zero_bits(%x: tensor<4xf32>) {
  // expected-error @+1 {{quantizer bit width must be in [2, 16], got 0}}
  %y = quant_qdq.quantize %x <bits = 0> : tensor<4xf32> -> tensor<4xi1>
  return
}

// -----

func.func @seventeen_bits(%x: tensor<4xf32>) {
  // expected-error @+1 {{quantizer bit width must be in [2, 16], got 17}}
  %y = quant_qdq.quantize %x <bits = 17> : tensor<4xf32> -> tensor<4xi17>
  return
}

// -----

func.func @thirty_two_bits(%q: tensor<4xi32>) {
  // expected-error @+1 {{quantizer bit width must be in [2, 16], got 32}}
  %y = quant_qdq.dequantize %q <bits = 32> scale [1.0] : tensor<4xi32> -> tensor<4xf32>
  return
}

// -----

func.func @bits_too_large_for_unsigned(%x: tensor<4xf32>) {
  // expected-error @+2 {{integer value too large}}
  // expected-error @+1 {{failed to parse QDQ_QuantizerAttr parameter 'bits' which is to be a `unsigned`}}
  %y = quant_qdq.fake_quant %x <bits = 4294967304> : tensor<4xf32>
  return
}

// -----

// A negative width wraps around as an unsigned value; it is still rejected.
func.func @negative_bits(%x: tensor<4xf32>) {
  // expected-error @+1 {{quantizer bit width must be in [2, 16], got}}
  %y = quant_qdq.fake_quant %x <bits = -8> : tensor<4xf32>
  return
}

// -----

func.func @negative_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{quantizer axis must be non-negative, got -1}}
  %y = quant_qdq.fake_quant %x <bits = 8, axis = -1> : tensor<4xf32>
  return
}

// -----

func.func @missing_bits(%x: tensor<4xf32>) {
  // expected-error @+1 {{struct is missing required parameter: bits}}
  %y = quant_qdq.fake_quant %x <axis = 0> : tensor<4xf32>
  return
}

// -----

func.func @unknown_parameter(%x: tensor<4xf32>) {
  // expected-error @+1 {{duplicate or unknown struct parameter name: per_channel}}
  %y = quant_qdq.fake_quant %x <bits = 8, per_channel = true> : tensor<4xf32>
  return
}

// -----

func.func @duplicate_parameter(%x: tensor<4xf32>) {
  // expected-error @+1 {{duplicate or unknown struct parameter name: bits}}
  %y = quant_qdq.fake_quant %x <bits = 8, bits = 4> : tensor<4xf32>
  return
}

// -----

func.func @bool_as_integer(%x: tensor<4xf32>) {
  // expected-error @+2 {{integer value too large}}
  // expected-error @+1 {{failed to parse QDQ_QuantizerAttr parameter 'symmetric' which is to be a `bool`}}
  %y = quant_qdq.fake_quant %x <bits = 8, symmetric = 2> : tensor<4xf32>
  return
}

// -----

// The quantizer is checked in the generic form too.
func.func @generic_form(%x: tensor<4xf32>) {
  // expected-error @+1 {{quantizer bit width must be in [2, 16], got 20}}
  %y = "quant_qdq.fake_quant"(%x) <{quantizer = #quant_qdq.quantizer<bits = 20>}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @missing_quantizer(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op requires attribute 'quantizer'}}
  %y = "quant_qdq.fake_quant"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @quantizer_wrong_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{invalid properties {quantizer = 8 : i64} for op quant_qdq.fake_quant: Invalid attribute `quantizer` in property conversion: 8 : i64}}
  %y = "quant_qdq.fake_quant"(%x) <{quantizer = 8 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}
