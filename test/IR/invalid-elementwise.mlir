// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// add and multiply: NumPy broadcasting of same-typed inputs.

func.func @not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{input #1 does not broadcast with the inputs before it}}
  // expected-error @+1 {{'quant_qdq.add' op failed to infer returned types}}
  %y = quant_qdq.add %a, %b : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Trailing dimensions align: 3 against 4.
func.func @trailing_alignment(%a: tensor<4x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{input #1 does not broadcast with the inputs before it}}
  // expected-error @+1 {{'quant_qdq.multiply' op failed to infer returned types}}
  %y = quant_qdq.multiply %a, %b : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return
}

// -----

// The third input must broadcast with the shape the first two make.
func.func @third_input(%a: tensor<4x1xf32>, %b: tensor<1x5xf32>, %c: tensor<3x1xf32>) {
  // expected-error @+2 {{input #2 does not broadcast with the inputs before it}}
  // expected-error @+1 {{'quant_qdq.add' op failed to infer returned types}}
  %y = quant_qdq.add %a, %b, %c : (tensor<4x1xf32>, tensor<1x5xf32>, tensor<3x1xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @element_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+2 {{input #1 differs in element type from input #0}}
  // expected-error @+1 {{'quant_qdq.add' op failed to infer returned types}}
  %y = quant_qdq.add %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @one_input(%a: tensor<4xf32>) {
  // expected-error @+2 {{expects at least two inputs}}
  // expected-error @+1 {{'quant_qdq.multiply' op failed to infer returned types}}
  %y = quant_qdq.multiply %a : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @no_inputs() {
  // expected-error @+2 {{expects at least two inputs}}
  // expected-error @+1 {{'quant_qdq.add' op failed to infer returned types}}
  %y = quant_qdq.add : () -> tensor<4xf32>
  return
}

// -----

// The result is the broadcast shape, not the first input's.
func.func @result_not_broadcast(%a: tensor<1x3xf32>, %b: tensor<2x1xf32>) {
  // expected-error @+2 {{'quant_qdq.add' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<1x3xf32>'}}
  // expected-error @+1 {{'quant_qdq.add' op failed to infer returned types}}
  %y = quant_qdq.add %a, %b : (tensor<1x3xf32>, tensor<2x1xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @result_element_type(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'quant_qdq.multiply' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<3xbf16>'}}
  // expected-error @+1 {{'quant_qdq.multiply' op failed to infer returned types}}
  %y = quant_qdq.multiply %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xbf16>
  return
}

// -----

func.func @unranked(%a: tensor<*xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'quant_qdq.add' op operand #0 must be variadic of ranked tensor of floating-point values, but got 'tensor<*xf32>'}}
  %y = quant_qdq.add %a, %b : (tensor<*xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}
