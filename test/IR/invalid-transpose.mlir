// RUN: qdq-opt %s -split-input-file -verify-diagnostics

func.func @perm_too_short(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{perm has 3 entries for an input of rank 4}}
  // expected-error @+1 {{'quant_qdq.transpose' op failed to infer returned types}}
  %y = quant_qdq.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x3x8xf32>
  return
}

// -----

func.func @perm_repeats(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{perm is not a permutation of [0, 2)}}
  // expected-error @+1 {{'quant_qdq.transpose' op failed to infer returned types}}
  %y = quant_qdq.transpose %x {perm = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @perm_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{perm is not a permutation of [0, 2)}}
  // expected-error @+1 {{'quant_qdq.transpose' op failed to infer returned types}}
  %y = quant_qdq.transpose %x {perm = array<i64: 0, 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Negative entries are not axes from the end.
func.func @perm_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{perm is not a permutation of [0, 2)}}
  // expected-error @+1 {{'quant_qdq.transpose' op failed to infer returned types}}
  %y = quant_qdq.transpose %x {perm = array<i64: -1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// Result dimension i is input dimension perm[i], not the inverse.
func.func @inverse_permutation(%x: tensor<1x3x8x5xf32>) {
  // expected-error @+2 {{'quant_qdq.transpose' op inferred type(s) 'tensor<1x8x5x3xf32>' are incompatible with return type(s) of operation 'tensor<1x5x3x8xf32>'}}
  // expected-error @+1 {{'quant_qdq.transpose' op failed to infer returned types}}
  %y = quant_qdq.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x5xf32>) -> tensor<1x5x3x8xf32>
  return
}

// -----

func.func @missing_perm(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'quant_qdq.transpose' op requires attribute 'perm'}}
  %y = quant_qdq.transpose %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}
