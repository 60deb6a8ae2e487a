// RUN: qdq-opt %s -split-input-file -verify-diagnostics

func.func @axis_out_of_range(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'quant_qdq.concat' op failed to infer returned types}}
  %y = quant_qdq.concat %a, %b {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @negative_axis_out_of_range(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+2 {{axis -3 is out of range for rank 2}}
  // expected-error @+1 {{'quant_qdq.concat' op failed to infer returned types}}
  %y = quant_qdq.concat %a, %b {axis = -3 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @size_mismatch(%a: tensor<1x64x28x28xf32>, %b: tensor<1x32x14x14xf32>) {
  // expected-error @+2 {{input #1 has size 14 in dimension 2 where input #0 has 28}}
  // expected-error @+1 {{'quant_qdq.concat' op failed to infer returned types}}
  %y = quant_qdq.concat %a, %b {axis = 1 : i64} : (tensor<1x64x28x28xf32>, tensor<1x32x14x14xf32>) -> tensor<1x96x28x28xf32>
  return
}

// -----

// The third input is compared with the sizes the first two settled.
func.func @size_mismatch_after_dynamic(%a: tensor<?x4xf32>, %b: tensor<3x4xf32>, %c: tensor<5x4xf32>) {
  // expected-error @+2 {{input #2 has size 5 in dimension 0 where input #0 has 3}}
  // expected-error @+1 {{'quant_qdq.concat' op failed to infer returned types}}
  %y = quant_qdq.concat %a, %b, %c {axis = 1 : i64} : (tensor<?x4xf32>, tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<3x12xf32>
  return
}

// -----

func.func @rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) {
  // expected-error @+2 {{input #1 differs in rank or element type from input #0}}
  // expected-error @+1 {{'quant_qdq.concat' op failed to infer returned types}}
  %y = quant_qdq.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @element_type_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xf16>) {
  // expected-error @+2 {{input #2 differs in rank or element type from input #0}}
  // expected-error @+1 {{'quant_qdq.concat' op failed to infer returned types}}
  %y = quant_qdq.concat %a, %b, %c {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<6x3xf32>
  return
}

// -----

func.func @no_inputs() {
  // expected-error @+2 {{expects at least one input}}
  // expected-error @+1 {{'quant_qdq.concat' op failed to infer returned types}}
  %y = quant_qdq.concat {axis = 0 : i64} : () -> tensor<0xf32>
  return
}

// -----

func.func @scalar_inputs(%a: tensor<f32>, %b: tensor<f32>) {
  // expected-error @+2 {{axis 0 is out of range for rank 0}}
  // expected-error @+1 {{'quant_qdq.concat' op failed to infer returned types}}
  %y = quant_qdq.concat %a, %b {axis = 0 : i64} : (tensor<f32>, tensor<f32>) -> tensor<2xf32>
  return
}

// -----

func.func @wrong_sum(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) {
  // expected-error @+2 {{'quant_qdq.concat' op inferred type(s) 'tensor<2x8xf32>' are incompatible with return type(s) of operation 'tensor<2x9xf32>'}}
  // expected-error @+1 {{'quant_qdq.concat' op failed to infer returned types}}
  %y = quant_qdq.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x9xf32>
  return
}

// -----

func.func @missing_axis(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+1 {{'quant_qdq.concat' op requires attribute 'axis'}}
  %y = quant_qdq.concat %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @integer_input(%a: tensor<2x3xi32>, %b: tensor<2x3xi32>) {
  // expected-error @+1 {{'quant_qdq.concat' op operand #0 must be variadic of ranked tensor of floating-point values, but got 'tensor<2x3xi32>'}}
  %y = quant_qdq.concat %a, %b {axis = 0 : i64} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<4x3xi32>
  return
}
