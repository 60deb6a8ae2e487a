// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Result dimension i is input dimension perm[i].

// CHECK-LABEL: func.func @nchw_to_nhwc(%arg0: tensor<1x3x224x200xf32>) -> tensor<1x224x200x3xf32> {
// CHECK-NEXT: %0 = quant_qdq.transpose "to_nhwc" %arg0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x224x200xf32>) -> tensor<1x224x200x3xf32>
// CHECK-NEXT: return %0 : tensor<1x224x200x3xf32>
func.func @nchw_to_nhwc(%x: tensor<1x3x224x200xf32>) -> tensor<1x224x200x3xf32> {
  %0 = quant_qdq.transpose "to_nhwc" %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x224x200xf32>) -> tensor<1x224x200x3xf32>
  return %0 : tensor<1x224x200x3xf32>
}

// CHECK-LABEL: func.func @nhwc_to_nchw(%arg0: tensor<?x7x5x64xf32>) -> tensor<?x64x7x5xf32> {
// CHECK-NEXT: %0 = quant_qdq.transpose %arg0 {perm = array<i64: 0, 3, 1, 2>} : (tensor<?x7x5x64xf32>) -> tensor<?x64x7x5xf32>
// CHECK-NEXT: return %0 : tensor<?x64x7x5xf32>
func.func @nhwc_to_nchw(%x: tensor<?x7x5x64xf32>) -> tensor<?x64x7x5xf32> {
  %0 = quant_qdq.transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<?x7x5x64xf32>) -> tensor<?x64x7x5xf32>
  return %0 : tensor<?x64x7x5xf32>
}

// CHECK-LABEL: func.func @matrix(%arg0: tensor<3x?xf32>) -> tensor<?x3xf32> {
// CHECK-NEXT: %0 = quant_qdq.transpose %arg0 {perm = array<i64: 1, 0>} : (tensor<3x?xf32>) -> tensor<?x3xf32>
// CHECK-NEXT: return %0 : tensor<?x3xf32>
func.func @matrix(%x: tensor<3x?xf32>) -> tensor<?x3xf32> {
  %0 = quant_qdq.transpose %x {perm = array<i64: 1, 0>} : (tensor<3x?xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// CHECK-LABEL: func.func @identity(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %0 = quant_qdq.transpose %arg0 {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %0 : tensor<2x3xf32>
func.func @identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = quant_qdq.transpose %x {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @scalar(%arg0: tensor<f32>) -> tensor<f32> {
// CHECK-NEXT: %0 = quant_qdq.transpose %arg0 {perm = array<i64>} : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: return %0 : tensor<f32>
func.func @scalar(%x: tensor<f32>) -> tensor<f32> {
  %0 = quant_qdq.transpose %x {perm = array<i64>} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
