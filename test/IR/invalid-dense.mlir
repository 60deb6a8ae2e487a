// RUN: qdq-opt %s -split-input-file -verify-diagnostics

func.func @feature_mismatch(%x: tensor<4x512xf32>, %w: tensor<256x10xf32>) {
  // expected-error @+2 {{input has 512 features but the weight expects 256}}
  // expected-error @+1 {{'quant_qdq.dense' op failed to infer returned types}}
  %y = quant_qdq.dense %x, %w : (tensor<4x512xf32>, tensor<256x10xf32>) -> tensor<4x10xf32>
  return
}

// -----

// A PyTorch N x K weight without transpose_weight.
func.func @missing_transpose_weight(%x: tensor<4x512xf32>, %w: tensor<10x512xf32>) {
  // expected-error @+2 {{input has 512 features but the weight expects 10}}
  // expected-error @+1 {{'quant_qdq.dense' op failed to infer returned types}}
  %y = quant_qdq.dense %x, %w : (tensor<4x512xf32>, tensor<10x512xf32>) -> tensor<4x10xf32>
  return
}

// -----

// A Keras K x N weight with transpose_weight.
func.func @spurious_transpose_weight(%x: tensor<4x512xf32>, %w: tensor<512x10xf32>) {
  // expected-error @+2 {{input has 512 features but the weight expects 10}}
  // expected-error @+1 {{'quant_qdq.dense' op failed to infer returned types}}
  %y = quant_qdq.dense %x, %w {transpose_weight} : (tensor<4x512xf32>, tensor<512x10xf32>) -> tensor<4x10xf32>
  return
}

// -----

func.func @bias_size(%x: tensor<4x512xf32>, %w: tensor<512x10xf32>, %b: tensor<512xf32>) {
  // expected-error @+2 {{bias must hold one value per unit (10)}}
  // expected-error @+1 {{'quant_qdq.dense' op failed to infer returned types}}
  %y = quant_qdq.dense %x, %w, %b : (tensor<4x512xf32>, tensor<512x10xf32>, tensor<512xf32>) -> tensor<4x10xf32>
  return
}

// -----

func.func @wrong_units(%x: tensor<4x512xf32>, %w: tensor<512x10xf32>) {
  // expected-error @+2 {{'quant_qdq.dense' op inferred type(s) 'tensor<4x10xf32>' are incompatible with return type(s) of operation 'tensor<4x512xf32>'}}
  // expected-error @+1 {{'quant_qdq.dense' op failed to infer returned types}}
  %y = quant_qdq.dense %x, %w : (tensor<4x512xf32>, tensor<512x10xf32>) -> tensor<4x512xf32>
  return
}

// -----

// Dense keeps the leading dimensions; it does not flatten them.
func.func @rank3_flattened_result(%x: tensor<2x3x8xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+2 {{'quant_qdq.dense' op inferred type(s) 'tensor<2x3x4xf32>' are incompatible with return type(s) of operation 'tensor<6x4xf32>'}}
  // expected-error @+1 {{'quant_qdq.dense' op failed to infer returned types}}
  %y = quant_qdq.dense %x, %w : (tensor<2x3x8xf32>, tensor<8x4xf32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @weight_element_type(%x: tensor<4x8xbf16>, %w: tensor<8x2xf32>) {
  // expected-error @+2 {{expects the weight and bias to hold the input's element type 'bf16'}}
  // expected-error @+1 {{'quant_qdq.dense' op failed to infer returned types}}
  %y = quant_qdq.dense %x, %w : (tensor<4x8xbf16>, tensor<8x2xf32>) -> tensor<4x2xbf16>
  return
}

// -----

func.func @bias_element_type(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>, %b: tensor<2xf16>) {
  // expected-error @+2 {{expects the weight and bias to hold the input's element type 'f32'}}
  // expected-error @+1 {{'quant_qdq.dense' op failed to infer returned types}}
  %y = quant_qdq.dense %x, %w, %b : (tensor<4x8xf32>, tensor<8x2xf32>, tensor<2xf16>) -> tensor<4x2xf32>
  return
}

// -----

func.func @scalar_input(%x: tensor<f32>, %w: tensor<1x2xf32>) {
  // expected-error @+2 {{expects an input of rank >= 1 and a 2-D weight}}
  // expected-error @+1 {{'quant_qdq.dense' op failed to infer returned types}}
  %y = quant_qdq.dense %x, %w : (tensor<f32>, tensor<1x2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @weight_rank(%x: tensor<4x8xf32>, %w: tensor<8x2x1xf32>) {
  // expected-error @+1 {{'quant_qdq.dense' op operand #1 must be 2D tensor of floating-point values, but got 'tensor<8x2x1xf32>'}}
  %y = quant_qdq.dense %x, %w : (tensor<4x8xf32>, tensor<8x2x1xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @unranked_input(%x: tensor<*xf32>, %w: tensor<8x2xf32>) {
  // expected-error @+1 {{'quant_qdq.dense' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<*xf32>'}}
  %y = quant_qdq.dense %x, %w : (tensor<*xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @transpose_weight_not_unit(%x: tensor<4x8xf32>, %w: tensor<2x8xf32>) {
  // expected-error @+1 {{'quant_qdq.dense' op attribute 'transpose_weight' failed to satisfy constraint: unit attribute}}
  %y = quant_qdq.dense %x, %w {transpose_weight = true} : (tensor<4x8xf32>, tensor<2x8xf32>) -> tensor<4x2xf32>
  return
}
