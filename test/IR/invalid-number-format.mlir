// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// Each number format takes its own parameters, in range.

func.func @fixed_point_without_bits(%x: tensor<4xf32>) {
  // expected-error @+1 {{'bits' and 'fraction_bits' are required by the fixed_point format}}
  %y = quant_qdq.round_to_format %x <fixed_point, bits = 8> : tensor<4xf32>
  return
}

// -----

func.func @bits_on_binary(%x: tensor<4xf32>) {
  // expected-error @+1 {{'bits' and 'fraction_bits' are not parameters of the binary format}}
  %y = quant_qdq.round_to_format %x <binary, bits = 8, fraction_bits = 2> : tensor<4xf32>
  return
}

// -----

func.func @too_wide(%x: tensor<4xf32>) {
  // expected-error @+1 {{fixed-point bits must be in [2, 24], got 25}}
  %y = quant_qdq.round_to_format %x <fixed_point, bits = 25, fraction_bits = 2> : tensor<4xf32>
  return
}

// -----

func.func @fraction_out_of_range(%x: tensor<4xf32>) {
  // expected-error @+1 {{fixed-point fraction_bits must be in [-64, 64], got 65}}
  %y = quant_qdq.round_to_format %x <fixed_point, bits = 8, fraction_bits = 65> : tensor<4xf32>
  return
}

// -----

func.func @seed_without_stochastic(%x: tensor<4xf32>) {
  // expected-error @+1 {{'seed' applies to stochastic rounding only}}
  %y = quant_qdq.round_to_format %x <fixed_point, bits = 8, fraction_bits = 2, seed = 3> : tensor<4xf32>
  return
}

// -----

func.func @rounding_on_ternary(%x: tensor<4xf32>) {
  // expected-error @+1 {{'rounding' is not a parameter of the ternary format}}
  %y = quant_qdq.round_to_format %x <ternary, rounding = down> : tensor<4xf32>
  return
}

// -----

func.func @negative_marginal(%x: tensor<4xf32>) {
  // expected-error @+1 {{the marginal of the binary format must be positive and finite, got -1}}
  %y = quant_qdq.round_to_format %x <binary, marginal = -1.0> : tensor<4xf32>
  return
}

// -----

func.func @marginal_on_logarithmic(%x: tensor<4xf32>) {
  // expected-error @+1 {{'marginal' is not a parameter of the logarithmic format}}
  %y = quant_qdq.round_to_format %x <logarithmic, marginal = 2.0> : tensor<4xf32>
  return
}

// -----

func.func @sparse_without_threshold(%x: tensor<4xf32>) {
  // expected-error @+1 {{the sparse format needs a 'threshold'}}
  %y = quant_qdq.round_to_format %x <sparse> : tensor<4xf32>
  return
}

// -----

func.func @negative_threshold(%x: tensor<4xf32>) {
  // expected-error @+1 {{a threshold must be non-negative and finite, got -5.000000e-01}}
  %y = quant_qdq.round_to_format %x <ternary, threshold = -0.5> : tensor<4xf32>
  return
}

// -----

func.func @threshold_on_half(%x: tensor<4xf32>) {
  // expected-error @+1 {{'threshold' is not a parameter of the half format}}
  %y = quant_qdq.round_to_format %x <half, threshold = 0.5> : tensor<4xf32>
  return
}

// -----

func.func @unknown_kind(%x: tensor<4xf32>) {
  // expected-error @+2 {{expected one of [fixed_point, binary, ternary, logarithmic, sparse, half] for a number format that round_to_format emulates, got: quaternary}}
  // expected-error @+1 {{failed to parse QDQ_NumberFormatAttr parameter 'kind'}}
  %y = quant_qdq.round_to_format %x <quaternary> : tensor<4xf32>
  return
}

// -----

func.func @integer_tensor(%x: tensor<4xi8>) {
  // expected-error @+1 {{must be ranked tensor of floating-point values}}
  %y = quant_qdq.round_to_format %x <half> : tensor<4xi8>
  return
}
