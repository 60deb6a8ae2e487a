// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// Unknown activation kinds, in the custom and the generic form.

func.func @unknown_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown activation kind 'frobnicate'}}
  %y = quant_qdq.activation frobnicate %x : tensor<4xf32>
  return
}

// -----

// Kinds are lower case.
func.func @wrong_case(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown activation kind 'ReLU'}}
  %y = quant_qdq.activation ReLU %x : tensor<4xf32>
  return
}

// -----

// Keras spells it hard_sigmoid, PyTorch hardsigmoid: only the first is known.
func.func @pytorch_spelling(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown activation kind 'hardsigmoid'}}
  %y = quant_qdq.activation hardsigmoid %x : tensor<4xf32>
  return
}

// -----

func.func @missing_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected valid keyword}}
  %y = quant_qdq.activation %x : tensor<4xf32>
  return
}

// -----

func.func @kind_as_string(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected valid keyword}}
  %y = quant_qdq.activation "relu" %x : tensor<4xf32>
  return
}

// -----

func.func @generic_unknown_kind(%x: tensor<4xf32>) {
  // expected-error @+2 {{expected ::mlir::quant_qdq::ActivationKind to be one of: relu, relu6, leaky_relu, clip, sigmoid, hard_sigmoid, swish, hard_swish, tanh, gelu, elu, softplus, linear, gelu_tanh}}
  // expected-error @+1 {{failed to parse QDQ_ActivationKindAttr parameter 'value' which is to be a `::mlir::quant_qdq::ActivationKind`}}
  %y = "quant_qdq.activation"(%x) <{kind = #quant_qdq<activation mish>}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @generic_kind_as_integer(%x: tensor<4xf32>) {
  // expected-error @+1 {{invalid properties {kind = 3 : i32} for op quant_qdq.activation: Invalid attribute `kind` in property conversion: 3 : i32}}
  %y = "quant_qdq.activation"(%x) <{kind = 3 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}
