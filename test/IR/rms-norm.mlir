// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// RMS normalization over the trailing dimensions from `axis` (default -1,
// epsilon 1e-5, neither printed), with an optional scale that broadcasts
// to those dimensions.

// CHECK-LABEL: func.func @scaled(%arg0: tensor<1x16x64xf32>, %arg1: tensor<64xf32>)
// CHECK-NEXT: %0 = quant_qdq.rms_norm "norm" %arg0 scale %arg1 {epsilon = 9.99999997E-7 : f32} : (tensor<1x16x64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32>
func.func @scaled(%x: tensor<1x16x64xf32>, %g: tensor<64xf32>) -> tensor<1x16x64xf32> {
  %0 = quant_qdq.rms_norm "norm" %x scale %g {epsilon = 1.0e-6 : f32} : (tensor<1x16x64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32>
  return %0 : tensor<1x16x64xf32>
}

// CHECK-LABEL: func.func @parts(%arg0: tensor<?x4x8xf16>, %arg1: tensor<4x1xf16>)
// CHECK-NEXT: %0 = quant_qdq.rms_norm %arg0 : (tensor<?x4x8xf16>) -> tensor<?x4x8xf16>
// CHECK-NEXT: %1 = quant_qdq.rms_norm %0 scale %arg1 {axis = 1 : i64} : (tensor<?x4x8xf16>, tensor<4x1xf16>) -> tensor<?x4x8xf16>
func.func @parts(%x: tensor<?x4x8xf16>, %g: tensor<4x1xf16>) -> tensor<?x4x8xf16> {
  %0 = quant_qdq.rms_norm %x {axis = -1 : i64} : (tensor<?x4x8xf16>) -> tensor<?x4x8xf16>
  %1 = quant_qdq.rms_norm %0 scale %g {axis = 1 : i64} : (tensor<?x4x8xf16>, tensor<4x1xf16>) -> tensor<?x4x8xf16>
  return %1 : tensor<?x4x8xf16>
}
