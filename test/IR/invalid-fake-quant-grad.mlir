// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// quant_qdq.fake_quant_grad: input, gradient and result share one type, and
// the quantizer rules of fake_quant apply.

func.func @grad_type(%x: tensor<4xf32>, %dy: tensor<4xf16>) {
  // expected-error @+1 {{'quant_qdq.fake_quant_grad' op failed to verify that all of {input, grad, output} have same type}}
  %dx = "quant_qdq.fake_quant_grad"(%x, %dy) <{quantizer = #quant_qdq.quantizer<bits = 8>}> : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @scale_count(%x: tensor<2x3xf32>, %dy: tensor<2x3xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant_grad' op expects 3 scales (one per slice along axis 1), got 2}}
  %dx = quant_qdq.fake_quant_grad %x, %dy <bits = 8, axis = 1> scale [0.5, 0.25] : tensor<2x3xf32>
  return
}

// -----

func.func @negative_scale(%x: tensor<4xf32>, %dy: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant_grad' op scale #0 must be positive and finite, got -5.000000e-01}}
  %dx = quant_qdq.fake_quant_grad %x, %dy <bits = 8> scale [-0.5] : tensor<4xf32>
  return
}
