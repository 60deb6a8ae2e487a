// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Pads: all the befores, then all the afters (ONNX order). The default
// mode (constant) and value (0) are not printed.

// CHECK-LABEL: func.func @zero_padding2d(%arg0: tensor<1x3x224x224xf32>) -> tensor<1x3x230x230xf32> {
// CHECK-NEXT: %0 = quant_qdq.pad "conv1_pad" %arg0 {pads = array<i64: 0, 0, 3, 3, 0, 0, 3, 3>} : (tensor<1x3x224x224xf32>) -> tensor<1x3x230x230xf32>
// CHECK-NEXT: return %0 : tensor<1x3x230x230xf32>
func.func @zero_padding2d(%x: tensor<1x3x224x224xf32>) -> tensor<1x3x230x230xf32> {
  %0 = quant_qdq.pad "conv1_pad" %x {pads = array<i64: 0, 0, 3, 3, 0, 0, 3, 3>} : (tensor<1x3x224x224xf32>) -> tensor<1x3x230x230xf32>
  return %0 : tensor<1x3x230x230xf32>
}

// CHECK-LABEL: func.func @explicit_defaults(%arg0: tensor<2x2xf32>) -> tensor<3x5xf32> {
// CHECK-NEXT: %0 = quant_qdq.pad %arg0 {pads = array<i64: 1, 1, 0, 2>} : (tensor<2x2xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: return %0 : tensor<3x5xf32>
func.func @explicit_defaults(%x: tensor<2x2xf32>) -> tensor<3x5xf32> {
  %0 = quant_qdq.pad %x {mode = #quant_qdq<pad_mode constant>, pads = array<i64: 1, 1, 0, 2>, value = 0.0 : f32} : (tensor<2x2xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @constant_value(%arg0: tensor<2x2xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT: %0 = quant_qdq.pad %arg0 {pads = array<i64: 1, 1, 1, 1>, value = -1.500000e+00 : f32} : (tensor<2x2xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: return %0 : tensor<4x4xf32>
func.func @constant_value(%x: tensor<2x2xf32>) -> tensor<4x4xf32> {
  %0 = quant_qdq.pad %x {pads = array<i64: 1, 1, 1, 1>, value = -1.5 : f32} : (tensor<2x2xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// Reflect padding must be smaller than the padded dimension: 2 < 3.
// CHECK-LABEL: func.func @reflect(%arg0: tensor<1x1x3x3xf32>) -> tensor<1x1x7x5xf32> {
// CHECK-NEXT: %0 = quant_qdq.pad %arg0 {mode = #quant_qdq<pad_mode reflect>, pads = array<i64: 0, 0, 2, 1, 0, 0, 2, 1>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x7x5xf32>
// CHECK-NEXT: return %0 : tensor<1x1x7x5xf32>
func.func @reflect(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x7x5xf32> {
  %0 = quant_qdq.pad %x {mode = #quant_qdq<pad_mode reflect>, pads = array<i64: 0, 0, 2, 1, 0, 0, 2, 1>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x7x5xf32>
  return %0 : tensor<1x1x7x5xf32>
}

// Edge padding may exceed the dimension.
// CHECK-LABEL: func.func @edge(%arg0: tensor<1x1x2x2xf32>) -> tensor<1x1x7x2xf32> {
// CHECK-NEXT: %0 = quant_qdq.pad %arg0 {mode = #quant_qdq<pad_mode edge>, pads = array<i64: 0, 0, 5, 0, 0, 0, 0, 0>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x7x2xf32>
// CHECK-NEXT: return %0 : tensor<1x1x7x2xf32>
func.func @edge(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x7x2xf32> {
  %0 = quant_qdq.pad %x {mode = #quant_qdq<pad_mode edge>, pads = array<i64: 0, 0, 5, 0, 0, 0, 0, 0>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x7x2xf32>
  return %0 : tensor<1x1x7x2xf32>
}

// A dynamic dimension stays dynamic, even under reflect padding.
// CHECK-LABEL: func.func @dynamic(%arg0: tensor<?x4xf32>) -> tensor<?x6xf32> {
// CHECK-NEXT: %0 = quant_qdq.pad %arg0 {mode = #quant_qdq<pad_mode reflect>, pads = array<i64: 9, 1, 9, 1>} : (tensor<?x4xf32>) -> tensor<?x6xf32>
// CHECK-NEXT: return %0 : tensor<?x6xf32>
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x6xf32> {
  %0 = quant_qdq.pad %x {mode = #quant_qdq<pad_mode reflect>, pads = array<i64: 9, 1, 9, 1>} : (tensor<?x4xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// Dimensions that are not padded are not checked against the mode: an empty
// dimension may be reflect- or edge-"padded" by nothing.
// CHECK-LABEL: func.func @empty_dimension_unpadded(%arg0: tensor<0x3xf32>) -> tensor<0x5xf32> {
// CHECK-NEXT: %0 = quant_qdq.pad %arg0 {mode = #quant_qdq<pad_mode reflect>, pads = array<i64: 0, 1, 0, 1>} : (tensor<0x3xf32>) -> tensor<0x5xf32>
// CHECK-NEXT: %1 = quant_qdq.pad %arg0 {mode = #quant_qdq<pad_mode edge>, pads = array<i64: 0, 1, 0, 1>} : (tensor<0x3xf32>) -> tensor<0x5xf32>
// CHECK-NEXT: return %1 : tensor<0x5xf32>
func.func @empty_dimension_unpadded(%x: tensor<0x3xf32>) -> tensor<0x5xf32> {
  %0 = quant_qdq.pad %x {mode = #quant_qdq<pad_mode reflect>, pads = array<i64: 0, 1, 0, 1>} : (tensor<0x3xf32>) -> tensor<0x5xf32>
  %1 = quant_qdq.pad %x {mode = #quant_qdq<pad_mode edge>, pads = array<i64: 0, 1, 0, 1>} : (tensor<0x3xf32>) -> tensor<0x5xf32>
  return %1 : tensor<0x5xf32>
}

// Constant padding of an empty dimension is fine.
// CHECK-LABEL: func.func @empty_dimension_constant(%arg0: tensor<0x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %0 = quant_qdq.pad %arg0 {pads = array<i64: 1, 0, 1, 0>} : (tensor<0x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %0 : tensor<2x3xf32>
func.func @empty_dimension_constant(%x: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %0 = quant_qdq.pad %x {pads = array<i64: 1, 0, 1, 0>} : (tensor<0x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
