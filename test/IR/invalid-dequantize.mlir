// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// quant_qdq.dequantize: the storage is the operand and the float the result.

func.func @storage_width(%q: tensor<4xi8>) {
  // expected-error @+1 {{'quant_qdq.dequantize' op storage element type 'i8' does not match the 4-bit quantizer}}
  %y = quant_qdq.dequantize %q <bits = 4> scale [1.0] : tensor<4xi8> -> tensor<4xf32>
  return
}

// -----

func.func @storage_wider(%q: tensor<4xi16>) {
  // expected-error @+1 {{'quant_qdq.dequantize' op storage element type 'i16' does not match the 8-bit quantizer}}
  %y = quant_qdq.dequantize %q <bits = 8> scale [1.0] : tensor<4xi16> -> tensor<4xf32>
  return
}

// -----

func.func @float_input(%q: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.dequantize' op operand #0 must be ranked tensor of signless integer or f8E4M3FN type values, but got 'tensor<4xf32>'}}
  %y = quant_qdq.dequantize %q <bits = 8> : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @integer_result(%q: tensor<4xi8>) {
  // expected-error @+1 {{'quant_qdq.dequantize' op result #0 must be ranked tensor of floating-point values, but got 'tensor<4xi32>'}}
  %y = quant_qdq.dequantize %q <bits = 8> : tensor<4xi8> -> tensor<4xi32>
  return
}

// -----

func.func @shape_mismatch(%q: tensor<4xi8>) {
  // expected-error @+1 {{'quant_qdq.dequantize' op requires the same shape for all operands and results}}
  %y = quant_qdq.dequantize %q <bits = 8> : tensor<4xi8> -> tensor<4x1xf32>
  return
}

// -----

// The per-axis count is checked against the float result's shape.
func.func @per_axis_count(%q: tensor<3x2xi8>) {
  // expected-error @+1 {{'quant_qdq.dequantize' op expects 2 scales (one per slice along axis 1), got 3}}
  %y = quant_qdq.dequantize %q <bits = 8, axis = 1> scale [1.0, 2.0, 3.0] : tensor<3x2xi8> -> tensor<3x2xf32>
  return
}

// -----

func.func @axis_out_of_range(%q: tensor<3x2xi8>) {
  // expected-error @+1 {{'quant_qdq.dequantize' op quantizer axis 2 is out of range for a tensor of rank 2}}
  %y = quant_qdq.dequantize %q <bits = 8, axis = 2> : tensor<3x2xi8> -> tensor<3x2xf32>
  return
}
