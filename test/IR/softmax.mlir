// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Softmax along an axis; the default axis, -1, is not printed.

// CHECK-LABEL: func.func @default_axis(%arg0: tensor<1x1000xf32>) -> tensor<1x1000xf32> {
// CHECK-NEXT: %0 = quant_qdq.softmax "prob" %arg0 : (tensor<1x1000xf32>) -> tensor<1x1000xf32>
// CHECK-NEXT: return %0 : tensor<1x1000xf32>
func.func @default_axis(%x: tensor<1x1000xf32>) -> tensor<1x1000xf32> {
  %0 = quant_qdq.softmax "prob" %x : (tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %0 : tensor<1x1000xf32>
}

// CHECK-LABEL: func.func @explicit_default_axis(%arg0: tensor<1x1000xf32>) -> tensor<1x1000xf32> {
// CHECK-NEXT: %0 = quant_qdq.softmax %arg0 : (tensor<1x1000xf32>) -> tensor<1x1000xf32>
// CHECK-NEXT: return %0 : tensor<1x1000xf32>
func.func @explicit_default_axis(%x: tensor<1x1000xf32>) -> tensor<1x1000xf32> {
  %0 = quant_qdq.softmax %x {axis = -1 : i64} : (tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %0 : tensor<1x1000xf32>
}

// CHECK-LABEL: func.func @channel_axis(%arg0: tensor<2x21x64x64xf32>) -> tensor<2x21x64x64xf32> {
// CHECK-NEXT: %0 = quant_qdq.softmax %arg0 {axis = 1 : i64} : (tensor<2x21x64x64xf32>) -> tensor<2x21x64x64xf32>
// CHECK-NEXT: return %0 : tensor<2x21x64x64xf32>
func.func @channel_axis(%x: tensor<2x21x64x64xf32>) -> tensor<2x21x64x64xf32> {
  %0 = quant_qdq.softmax %x {axis = 1 : i64} : (tensor<2x21x64x64xf32>) -> tensor<2x21x64x64xf32>
  return %0 : tensor<2x21x64x64xf32>
}

// CHECK-LABEL: func.func @first_and_last_axes(%arg0: tensor<?x8x?xf32>) -> tensor<?x8x?xf32> {
// CHECK-NEXT: %0 = quant_qdq.softmax %arg0 {axis = 0 : i64} : (tensor<?x8x?xf32>) -> tensor<?x8x?xf32>
// CHECK-NEXT: %1 = quant_qdq.softmax %0 {axis = -3 : i64} : (tensor<?x8x?xf32>) -> tensor<?x8x?xf32>
// CHECK-NEXT: %2 = quant_qdq.softmax %1 {axis = 2 : i64} : (tensor<?x8x?xf32>) -> tensor<?x8x?xf32>
// CHECK-NEXT: return %2 : tensor<?x8x?xf32>
func.func @first_and_last_axes(%x: tensor<?x8x?xf32>) -> tensor<?x8x?xf32> {
  %0 = quant_qdq.softmax %x {axis = 0 : i64} : (tensor<?x8x?xf32>) -> tensor<?x8x?xf32>
  %1 = quant_qdq.softmax %0 {axis = -3 : i64} : (tensor<?x8x?xf32>) -> tensor<?x8x?xf32>
  %2 = quant_qdq.softmax %1 {axis = 2 : i64} : (tensor<?x8x?xf32>) -> tensor<?x8x?xf32>
  return %2 : tensor<?x8x?xf32>
}
