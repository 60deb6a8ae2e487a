// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Layer normalization over the trailing dimensions from `axis` (default
// -1, epsilon 1e-5, neither printed), with an optional scale and bias that
// broadcast to those dimensions.

// CHECK-LABEL: func.func @affine(%arg0: tensor<1x197x768xf32>, %arg1: tensor<768xf32>, %arg2: tensor<768xf32>)
// CHECK-NEXT: %0 = quant_qdq.layer_norm "ln" %arg0 scale %arg1 bias %arg2 {epsilon = 9.99999997E-7 : f32} : (tensor<1x197x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<1x197x768xf32>
func.func @affine(%x: tensor<1x197x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<1x197x768xf32> {
  %0 = quant_qdq.layer_norm "ln" %x scale %g bias %b {epsilon = 1.0e-6 : f32} : (tensor<1x197x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<1x197x768xf32>
  return %0 : tensor<1x197x768xf32>
}

// CHECK-LABEL: func.func @parts(%arg0: tensor<?x4x8xf32>, %arg1: tensor<4x1xf32>, %arg2: tensor<8xf32>)
// CHECK-NEXT: %0 = quant_qdq.layer_norm %arg0 : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
// CHECK-NEXT: %1 = quant_qdq.layer_norm %0 scale %arg1 {axis = 1 : i64} : (tensor<?x4x8xf32>, tensor<4x1xf32>) -> tensor<?x4x8xf32>
// CHECK-NEXT: %2 = quant_qdq.layer_norm %1 bias %arg2 {axis = -2 : i64} : (tensor<?x4x8xf32>, tensor<8xf32>) -> tensor<?x4x8xf32>
func.func @parts(%x: tensor<?x4x8xf32>, %g: tensor<4x1xf32>, %b: tensor<8xf32>) -> tensor<?x4x8xf32> {
  %0 = quant_qdq.layer_norm %x {axis = -1 : i64} : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  %1 = quant_qdq.layer_norm %0 scale %g {axis = 1 : i64} : (tensor<?x4x8xf32>, tensor<4x1xf32>) -> tensor<?x4x8xf32>
  %2 = quant_qdq.layer_norm %1 bias %b {axis = -2 : i64} : (tensor<?x4x8xf32>, tensor<8xf32>) -> tensor<?x4x8xf32>
  return %2 : tensor<?x4x8xf32>
}
