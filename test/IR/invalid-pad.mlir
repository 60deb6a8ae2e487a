// RUN: qdq-opt %s -split-input-file -verify-diagnostics

func.func @pad_count(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{expects 8 pads (before and after each dimension), got 4}}
  // expected-error @+1 {{'quant_qdq.pad' op failed to infer returned types}}
  %y = quant_qdq.pad %x {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
  return
}

// -----

func.func @negative_pad(%x: tensor<4x4xf32>) {
  // expected-error @+2 {{pads must be non-negative}}
  // expected-error @+1 {{'quant_qdq.pad' op failed to infer returned types}}
  %y = quant_qdq.pad %x {pads = array<i64: 0, -1, 0, 0>} : (tensor<4x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

// Reflect padding may not reach past the opposite border: 3 >= 3.
func.func @reflect_too_large(%x: tensor<1x1x3x3xf32>) {
  // expected-error @+2 {{reflect padding of dimension 2 must be smaller than its size 3}}
  // expected-error @+1 {{'quant_qdq.pad' op failed to infer returned types}}
  %y = quant_qdq.pad %x {mode = #quant_qdq<pad_mode reflect>, pads = array<i64: 0, 0, 3, 0, 0, 0, 0, 0>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x6x3xf32>
  return
}

// -----

func.func @reflect_after_too_large(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{reflect padding of dimension 1 must be smaller than its size 5}}
  // expected-error @+1 {{'quant_qdq.pad' op failed to infer returned types}}
  %y = quant_qdq.pad %x {mode = #quant_qdq<pad_mode reflect>, pads = array<i64: 0, 1, 0, 7>} : (tensor<2x5xf32>) -> tensor<2x13xf32>
  return
}

// -----

// A size-1 dimension cannot be reflect-padded at all.
func.func @reflect_size_one(%x: tensor<1x5xf32>) {
  // expected-error @+2 {{reflect padding of dimension 0 must be smaller than its size 1}}
  // expected-error @+1 {{'quant_qdq.pad' op failed to infer returned types}}
  %y = quant_qdq.pad %x {mode = #quant_qdq<pad_mode reflect>, pads = array<i64: 1, 0, 0, 0>} : (tensor<1x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Edge padding repeats the border value: an empty dimension has none.
func.func @edge_empty_dimension(%x: tensor<0x5xf32>) {
  // expected-error @+2 {{edge padding of dimension 0 needs a non-empty dimension}}
  // expected-error @+1 {{'quant_qdq.pad' op failed to infer returned types}}
  %y = quant_qdq.pad %x {mode = #quant_qdq<pad_mode edge>, pads = array<i64: 1, 0, 1, 0>} : (tensor<0x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @wrong_result(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{'quant_qdq.pad' op inferred type(s) 'tensor<1x3x10x10xf32>' are incompatible with return type(s) of operation 'tensor<1x3x9x9xf32>'}}
  // expected-error @+1 {{'quant_qdq.pad' op failed to infer returned types}}
  %y = quant_qdq.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x9x9xf32>
  return
}

// -----

// ONNX order is all befores, then all afters, not (before, after) pairs.
func.func @pairwise_order(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'quant_qdq.pad' op inferred type(s) 'tensor<4x5xf32>' are incompatible with return type(s) of operation 'tensor<3x6xf32>'}}
  // expected-error @+1 {{'quant_qdq.pad' op failed to infer returned types}}
  %y = quant_qdq.pad %x {pads = array<i64: 1, 0, 1, 2>} : (tensor<2x3xf32>) -> tensor<3x6xf32>
  return
}

// -----

func.func @unknown_mode(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{expected ::mlir::quant_qdq::PadMode to be one of: constant, reflect, edge}}
  // expected-error @+1 {{failed to parse QDQ_PadModeAttr parameter 'value' which is to be a `::mlir::quant_qdq::PadMode`}}
  %y = quant_qdq.pad %x {mode = #quant_qdq<pad_mode wrap>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @mode_as_layout(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'quant_qdq.pad' op attribute 'mode' failed to satisfy constraint: how a pad layer fills the border}}
  %y = quant_qdq.pad %x {mode = #quant_qdq<layout nchw>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @value_f64(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'quant_qdq.pad' op attribute 'value' failed to satisfy constraint: 32-bit float attribute}}
  %y = quant_qdq.pad %x {pads = array<i64: 1, 1, 1, 1>, value = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  return
}
