// RUN: qdq-opt %s -split-input-file -verify-diagnostics

func.func @parameter_count(%x: tensor<1x64x8x8xf32>, %p: tensor<64xf32>, %q: tensor<32xf32>) {
  // expected-error @+1 {{'quant_qdq.batch_norm' op expects 64 values per parameter (one per channel), got 32}}
  %y = quant_qdq.batch_norm %x, %p, %p, %q, %p : (tensor<1x64x8x8xf32>, tensor<64xf32>, tensor<64xf32>, tensor<32xf32>, tensor<64xf32>) -> tensor<1x64x8x8xf32>
  return
}

// -----

// NHWC: the channels are the last axis (3), not axis 1 (8).
func.func @nhwc_parameter_count(%x: tensor<1x8x8x3xf32>, %p: tensor<8xf32>) {
  // expected-error @+1 {{'quant_qdq.batch_norm' op expects 3 values per parameter (one per channel), got 8}}
  %y = quant_qdq.batch_norm %x, %p, %p, %p, %p {layout = #quant_qdq<layout nhwc>} : (tensor<1x8x8x3xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x8x3xf32>
  return
}

// -----

func.func @variance_count(%x: tensor<2x16xf32>, %p: tensor<16xf32>, %v: tensor<17xf32>) {
  // expected-error @+1 {{'quant_qdq.batch_norm' op expects 16 values per parameter (one per channel), got 17}}
  %y = quant_qdq.batch_norm %x, %p, %p, %p, %v : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<17xf32>) -> tensor<2x16xf32>
  return
}

// -----

func.func @rank1_input(%x: tensor<16xf32>, %p: tensor<16xf32>) {
  // expected-error @+1 {{'quant_qdq.batch_norm' op expects an input of rank >= 2, got 1}}
  %y = quant_qdq.batch_norm %x, %p, %p, %p, %p : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @zero_epsilon(%x: tensor<2x16xf32>, %p: tensor<16xf32>) {
  // expected-error @+1 {{'quant_qdq.batch_norm' op epsilon must be positive and finite, got 0.000000e+00}}
  %y = quant_qdq.batch_norm %x, %p, %p, %p, %p {epsilon = 0.0 : f32} : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  return
}

// -----

func.func @negative_epsilon(%x: tensor<2x16xf32>, %p: tensor<16xf32>) {
  // expected-error @+1 {{'quant_qdq.batch_norm' op epsilon must be positive and finite, got -1.000000e-03}}
  %y = quant_qdq.batch_norm %x, %p, %p, %p, %p {epsilon = -1.0e-3 : f32} : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  return
}

// -----

func.func @infinite_epsilon(%x: tensor<2x16xf32>, %p: tensor<16xf32>) {
  // expected-error @+1 {{'quant_qdq.batch_norm' op epsilon must be positive and finite, got INF}}
  %y = quant_qdq.batch_norm %x, %p, %p, %p, %p {epsilon = 0x7F800000 : f32} : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  return
}

// -----

func.func @nan_epsilon(%x: tensor<2x16xf32>, %p: tensor<16xf32>) {
  // expected-error @+1 {{'quant_qdq.batch_norm' op epsilon must be positive and finite, got nan}}
  %y = quant_qdq.batch_norm %x, %p, %p, %p, %p {epsilon = 0x7FC00000 : f32} : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  return
}

// -----

func.func @epsilon_f64(%x: tensor<2x16xf32>, %p: tensor<16xf32>) {
  // expected-error @+1 {{'quant_qdq.batch_norm' op attribute 'epsilon' failed to satisfy constraint: 32-bit float attribute}}
  %y = quant_qdq.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-3 : f64} : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  return
}

// -----

func.func @result_type(%x: tensor<2x16xf32>, %p: tensor<16xf32>) {
  // The result has the input's type (the op infers it).
  // expected-error @+2 {{'quant_qdq.batch_norm' op inferred type(s) 'tensor<2x16xf32>' are incompatible with return type(s) of operation 'tensor<2x16xf16>'}}
  // expected-error @+1 {{'quant_qdq.batch_norm' op failed to infer returned types}}
  %y = quant_qdq.batch_norm %x, %p, %p, %p, %p : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16xf16>
  return
}

// -----

func.func @matrix_parameter(%x: tensor<2x16xf32>, %p: tensor<16xf32>, %m: tensor<1x16xf32>) {
  // expected-error @+1 {{'quant_qdq.batch_norm' op operand #3 must be 1D tensor of floating-point values, but got 'tensor<1x16xf32>'}}
  %y = quant_qdq.batch_norm %x, %p, %p, %m, %p : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<1x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  return
}

// -----

func.func @missing_operand(%x: tensor<2x16xf32>, %p: tensor<16xf32>) {
  // expected-error @+1 {{'quant_qdq.batch_norm' op expected 5 operands, but found 4}}
  %y = "quant_qdq.batch_norm"(%x, %p, %p, %p) : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  return
}
