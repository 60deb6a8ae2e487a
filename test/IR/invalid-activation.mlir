// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// Each activation kind takes only its own parameters.

func.func @alpha_on_relu(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op 'alpha' does not apply to the 'relu' activation}}
  %y = quant_qdq.activation relu %x {alpha = 0.1 : f32} : tensor<4xf32>
  return
}

// -----

func.func @beta_on_leaky_relu(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op 'beta' does not apply to the 'leaky_relu' activation}}
  %y = quant_qdq.activation leaky_relu %x {alpha = 0.1 : f32, beta = 0.5 : f32} : tensor<4xf32>
  return
}

// -----

func.func @beta_on_elu(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op 'beta' does not apply to the 'elu' activation}}
  %y = quant_qdq.activation elu %x {beta = 0.5 : f32} : tensor<4xf32>
  return
}

// -----

func.func @min_on_relu6(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op 'min' does not apply to the 'relu6' activation}}
  %y = quant_qdq.activation relu6 %x {min = 0.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @max_on_sigmoid(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op 'max' does not apply to the 'sigmoid' activation}}
  %y = quant_qdq.activation sigmoid %x {max = 1.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @alpha_on_clip(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op 'alpha' does not apply to the 'clip' activation}}
  %y = quant_qdq.activation clip %x {alpha = 1.0 : f32, max = 6.0 : f32, min = 0.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @alpha_on_swish(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op 'alpha' does not apply to the 'swish' activation}}
  %y = quant_qdq.activation swish %x {alpha = 1.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @alpha_on_linear(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op 'alpha' does not apply to the 'linear' activation}}
  %y = quant_qdq.activation linear %x {alpha = 2.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @clip_without_bounds(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op a clip activation needs both 'min' and 'max'}}
  %y = quant_qdq.activation clip %x : tensor<4xf32>
  return
}

// -----

func.func @clip_without_max(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op a clip activation needs both 'min' and 'max'}}
  %y = quant_qdq.activation clip %x {min = 0.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @clip_without_min(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op a clip activation needs both 'min' and 'max'}}
  %y = quant_qdq.activation clip %x {max = 6.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @clip_inverted_bounds(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op clip bounds must satisfy min <= max, got [6.000000e+00, 0.000000e+00]}}
  %y = quant_qdq.activation clip %x {max = 0.0 : f32, min = 6.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @clip_nan_bound(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op clip bounds must satisfy min <= max, got [0.000000e+00, nan]}}
  %y = quant_qdq.activation clip %x {max = 0x7FC00000 : f32, min = 0.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @infinite_alpha(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op activation parameters must be finite}}
  %y = quant_qdq.activation leaky_relu %x {alpha = 0x7F800000 : f32} : tensor<4xf32>
  return
}

// -----

func.func @nan_beta(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op activation parameters must be finite}}
  %y = quant_qdq.activation hard_sigmoid %x {beta = 0xFFC00000 : f32} : tensor<4xf32>
  return
}

// -----

func.func @alpha_f64(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op attribute 'alpha' failed to satisfy constraint: 32-bit float attribute}}
  %y = quant_qdq.activation elu %x {alpha = 1.0 : f64} : tensor<4xf32>
  return
}

// -----

func.func @result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op requires the same type for all operands and results}}
  %y = "quant_qdq.activation"(%x) <{kind = #quant_qdq<activation relu>}> : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @integer_input(%x: tensor<4xi8>) {
  // expected-error @+1 {{'quant_qdq.activation' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4xi8>'}}
  %y = quant_qdq.activation relu %x : tensor<4xi8>
  return
}

// -----

func.func @missing_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.activation' op requires attribute 'kind'}}
  %y = "quant_qdq.activation"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}
