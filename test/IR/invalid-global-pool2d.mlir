// RUN: qdq-opt %s -split-input-file -verify-diagnostics

func.func @keep_dims_expected(%x: tensor<1x64x7x7xf32>) {
  // expected-error @+2 {{'quant_qdq.global_avg_pool2d' op inferred type(s) 'tensor<1x64x1x1xf32>' are incompatible with return type(s) of operation 'tensor<1x64xf32>'}}
  // expected-error @+1 {{'quant_qdq.global_avg_pool2d' op failed to infer returned types}}
  %y = quant_qdq.global_avg_pool2d %x : (tensor<1x64x7x7xf32>) -> tensor<1x64xf32>
  return
}

// -----

func.func @flat_expected(%x: tensor<1x64x7x7xf32>) {
  // expected-error @+2 {{'quant_qdq.global_max_pool2d' op inferred type(s) 'tensor<1x64xf32>' are incompatible with return type(s) of operation 'tensor<1x64x1x1xf32>'}}
  // expected-error @+1 {{'quant_qdq.global_max_pool2d' op failed to infer returned types}}
  %y = quant_qdq.global_max_pool2d %x {keep_dims = false} : (tensor<1x64x7x7xf32>) -> tensor<1x64x1x1xf32>
  return
}

// -----

// NHWC keeps N x 1 x 1 x C.
func.func @nhwc_keep_dims(%x: tensor<1x7x7x64xf32>) {
  // expected-error @+2 {{'quant_qdq.global_avg_pool2d' op inferred type(s) 'tensor<1x1x1x64xf32>' are incompatible with return type(s) of operation 'tensor<1x64x1x1xf32>'}}
  // expected-error @+1 {{'quant_qdq.global_avg_pool2d' op failed to infer returned types}}
  %y = quant_qdq.global_avg_pool2d %x {layout = #quant_qdq<layout nhwc>} : (tensor<1x7x7x64xf32>) -> tensor<1x64x1x1xf32>
  return
}

// -----

// NHWC without keep_dims reads the channels from the last axis.
func.func @nhwc_flat(%x: tensor<1x7x7x64xf32>) {
  // expected-error @+2 {{'quant_qdq.global_max_pool2d' op inferred type(s) 'tensor<1x64xf32>' are incompatible with return type(s) of operation 'tensor<1x7xf32>'}}
  // expected-error @+1 {{'quant_qdq.global_max_pool2d' op failed to infer returned types}}
  %y = quant_qdq.global_max_pool2d %x {keep_dims = false, layout = #quant_qdq<layout nhwc>} : (tensor<1x7x7x64xf32>) -> tensor<1x7xf32>
  return
}

// -----

func.func @input_rank(%x: tensor<1x64x49xf32>) {
  // expected-error @+1 {{'quant_qdq.global_avg_pool2d' op operand #0 must be 4D tensor of floating-point values, but got 'tensor<1x64x49xf32>'}}
  %y = quant_qdq.global_avg_pool2d %x : (tensor<1x64x49xf32>) -> tensor<1x64x1xf32>
  return
}

// -----

func.func @keep_dims_not_bool(%x: tensor<1x64x7x7xf32>) {
  // expected-error @+1 {{'quant_qdq.global_avg_pool2d' op attribute 'keep_dims' failed to satisfy constraint: bool attribute}}
  %y = quant_qdq.global_avg_pool2d %x {keep_dims = 0 : i64} : (tensor<1x64x7x7xf32>) -> tensor<1x64xf32>
  return
}

// -----

func.func @element_type(%x: tensor<1x64x7x7xf32>) {
  // expected-error @+2 {{'quant_qdq.global_avg_pool2d' op inferred type(s) 'tensor<1x64x1x1xf32>' are incompatible with return type(s) of operation 'tensor<1x64x1x1xf16>'}}
  // expected-error @+1 {{'quant_qdq.global_avg_pool2d' op failed to infer returned types}}
  %y = quant_qdq.global_avg_pool2d %x : (tensor<1x64x7x7xf32>) -> tensor<1x64x1x1xf16>
  return
}
