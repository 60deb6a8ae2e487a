// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Reshape to the dimensions of `shape`; one of them may be -1.

// CHECK-LABEL: func.func @static(%arg0: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
// CHECK-NEXT: %0 = quant_qdq.reshape "r" %arg0 {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: return %0 : tensor<6x4xf32>
func.func @static(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = quant_qdq.reshape "r" %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -1 is computed from the element count: 24 / (2 * 2) = 6.
// CHECK-LABEL: func.func @inferred_dim(%arg0: tensor<2x3x4xf32>) -> tensor<2x6x2xf32> {
// CHECK-NEXT: %0 = quant_qdq.reshape %arg0 {shape = array<i64: 2, -1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x6x2xf32>
// CHECK-NEXT: return %0 : tensor<2x6x2xf32>
func.func @inferred_dim(%x: tensor<2x3x4xf32>) -> tensor<2x6x2xf32> {
  %0 = quant_qdq.reshape %x {shape = array<i64: 2, -1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x6x2xf32>
  return %0 : tensor<2x6x2xf32>
}

// With a dynamic batch the -1 dimension stays dynamic.
// CHECK-LABEL: func.func @dynamic_batch(%arg0: tensor<?x512x1x1xf32>) -> tensor<?x512xf32> {
// CHECK-NEXT: %0 = quant_qdq.reshape %arg0 {shape = array<i64: -1, 512>} : (tensor<?x512x1x1xf32>) -> tensor<?x512xf32>
// CHECK-NEXT: return %0 : tensor<?x512xf32>
func.func @dynamic_batch(%x: tensor<?x512x1x1xf32>) -> tensor<?x512xf32> {
  %0 = quant_qdq.reshape %x {shape = array<i64: -1, 512>} : (tensor<?x512x1x1xf32>) -> tensor<?x512xf32>
  return %0 : tensor<?x512xf32>
}

// A result type more static than the shape function's is accepted.
// CHECK-LABEL: func.func @refined_batch(%arg0: tensor<?x512x1x1xf32>) -> tensor<8x512xf32> {
// CHECK-NEXT: %0 = quant_qdq.reshape %arg0 {shape = array<i64: -1, 512>} : (tensor<?x512x1x1xf32>) -> tensor<8x512xf32>
// CHECK-NEXT: return %0 : tensor<8x512xf32>
func.func @refined_batch(%x: tensor<?x512x1x1xf32>) -> tensor<8x512xf32> {
  %0 = quant_qdq.reshape %x {shape = array<i64: -1, 512>} : (tensor<?x512x1x1xf32>) -> tensor<8x512xf32>
  return %0 : tensor<8x512xf32>
}

// CHECK-LABEL: func.func @to_scalar_and_back(%arg0: tensor<1x1xf32>) -> tensor<1x1x1xf32> {
// CHECK-NEXT: %0 = quant_qdq.reshape %arg0 {shape = array<i64>} : (tensor<1x1xf32>) -> tensor<f32>
// CHECK-NEXT: %1 = quant_qdq.reshape %0 {shape = array<i64: 1, -1, 1>} : (tensor<f32>) -> tensor<1x1x1xf32>
// CHECK-NEXT: return %1 : tensor<1x1x1xf32>
func.func @to_scalar_and_back(%x: tensor<1x1xf32>) -> tensor<1x1x1xf32> {
  %0 = quant_qdq.reshape %x {shape = array<i64>} : (tensor<1x1xf32>) -> tensor<f32>
  %1 = quant_qdq.reshape %0 {shape = array<i64: 1, -1, 1>} : (tensor<f32>) -> tensor<1x1x1xf32>
  return %1 : tensor<1x1x1xf32>
}

// Reshaping to the same type keeps the op: folding is canonicalization's job.
// CHECK-LABEL: func.func @same_shape(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT: %0 = quant_qdq.reshape %arg0 {shape = array<i64: 4, 4>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: return %0 : tensor<4x4xf32>
func.func @same_shape(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = quant_qdq.reshape %x {shape = array<i64: 4, 4>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
