// RUN: qdq-opt %s -split-input-file -verify-diagnostics

// quant_qdq.fake_quant stays in float; its quantizer still has to fit.

func.func @result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op requires the same type for all operands and results}}
  %y = "quant_qdq.fake_quant"(%x) <{quantizer = #quant_qdq.quantizer<bits = 8>}> : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @integer_input(%x: tensor<4xi8>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4xi8>'}}
  %y = quant_qdq.fake_quant %x <bits = 8> : tensor<4xi8>
  return
}

// -----

func.func @axis_out_of_range(%x: tensor<2x16x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op quantizer axis 4 is out of range for a tensor of rank 4}}
  %y = quant_qdq.fake_quant %x <bits = 8, axis = 4> : tensor<2x16x3x3xf32>
  return
}

// -----

func.func @per_axis_count(%x: tensor<2x16x3x3xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op expects 2 scales (one per slice along axis 0), got 16}}
  %y = quant_qdq.fake_quant %x <bits = 8, axis = 0> scale [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0] : tensor<2x16x3x3xf32>
  return
}

// -----

func.func @zero_point_range(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op zero point #0 = 8 is outside the storage range [-8, 7]}}
  %y = quant_qdq.fake_quant %x <bits = 4, symmetric = false> scale [1.0] zero_point [8] : tensor<4xf32>
  return
}

// -----

func.func @symmetric_zero_point(%x: tensor<4xf32>) {
  // expected-error @+1 {{'quant_qdq.fake_quant' op zero point #0 = 1 must be 0 for a symmetric signed quantizer}}
  %y = quant_qdq.fake_quant %x <bits = 8> scale [1.0] zero_point [1] : tensor<4xf32>
  return
}
