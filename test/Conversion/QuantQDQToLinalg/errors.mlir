// What cannot be lowered is reported once, at its location.
// RUN: qdq-opt %s --convert-quant-qdq-to-linalg --split-input-file -verify-diagnostics

func.func @uncalibrated(%x: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error @+1 {{'quant_qdq.quantize' op has no scale: calibrate the model, or set scales, before lowering}}
  %q = quant_qdq.quantize %x <bits = 8> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

func.func @unknown_layer(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'quant_qdq.generic' op cannot be lowered: no lowering for layer type 'LpNormalization'}}
  %y = quant_qdq.generic "LpNormalization" %x : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
