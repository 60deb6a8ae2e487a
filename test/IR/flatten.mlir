// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Flatten to two dimensions: those before axis, and the rest.

// CHECK-LABEL: func.func @keras_flatten(%arg0: tensor<2x512x7x7xf32>) -> tensor<2x25088xf32> {
// CHECK-NEXT: %0 = quant_qdq.flatten "flatten" %arg0 : (tensor<2x512x7x7xf32>) -> tensor<2x25088xf32>
// CHECK-NEXT: return %0 : tensor<2x25088xf32>
func.func @keras_flatten(%x: tensor<2x512x7x7xf32>) -> tensor<2x25088xf32> {
  %0 = quant_qdq.flatten "flatten" %x : (tensor<2x512x7x7xf32>) -> tensor<2x25088xf32>
  return %0 : tensor<2x25088xf32>
}

// CHECK-LABEL: func.func @dynamic_batch(%arg0: tensor<?x8x4x4xf32>) -> tensor<?x128xf32> {
// CHECK-NEXT: %0 = quant_qdq.flatten %arg0 : (tensor<?x8x4x4xf32>) -> tensor<?x128xf32>
// CHECK-NEXT: return %0 : tensor<?x128xf32>
func.func @dynamic_batch(%x: tensor<?x8x4x4xf32>) -> tensor<?x128xf32> {
  %0 = quant_qdq.flatten %x : (tensor<?x8x4x4xf32>) -> tensor<?x128xf32>
  return %0 : tensor<?x128xf32>
}

// axis = 0 puts everything in the second dimension; axis = rank in the first.
// CHECK-LABEL: func.func @edge_axes(%arg0: tensor<2x3x4xf32>) -> (tensor<1x24xf32>, tensor<24x1xf32>) {
// CHECK-NEXT: %0 = quant_qdq.flatten %arg0 {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<1x24xf32>
// CHECK-NEXT: %1 = quant_qdq.flatten %arg0 {axis = 3 : i64} : (tensor<2x3x4xf32>) -> tensor<24x1xf32>
// CHECK-NEXT: return %0, %1 : tensor<1x24xf32>, tensor<24x1xf32>
func.func @edge_axes(%x: tensor<2x3x4xf32>) -> (tensor<1x24xf32>, tensor<24x1xf32>) {
  %0 = quant_qdq.flatten %x {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<1x24xf32>
  %1 = quant_qdq.flatten %x {axis = 3 : i64} : (tensor<2x3x4xf32>) -> tensor<24x1xf32>
  return %0, %1 : tensor<1x24xf32>, tensor<24x1xf32>
}

// CHECK-LABEL: func.func @negative_axis(%arg0: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
// CHECK-NEXT: %0 = quant_qdq.flatten %arg0 {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: return %0 : tensor<6x4xf32>
func.func @negative_axis(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = quant_qdq.flatten %x {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// A dynamic dimension makes its side of the split dynamic.
// CHECK-LABEL: func.func @dynamic_inner(%arg0: tensor<2x3x?xf32>) -> tensor<6x?xf32> {
// CHECK-NEXT: %0 = quant_qdq.flatten %arg0 {axis = 2 : i64} : (tensor<2x3x?xf32>) -> tensor<6x?xf32>
// CHECK-NEXT: return %0 : tensor<6x?xf32>
func.func @dynamic_inner(%x: tensor<2x3x?xf32>) -> tensor<6x?xf32> {
  %0 = quant_qdq.flatten %x {axis = 2 : i64} : (tensor<2x3x?xf32>) -> tensor<6x?xf32>
  return %0 : tensor<6x?xf32>
}
