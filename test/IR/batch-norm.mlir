// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Batch normalization: one scale, bias, mean and variance per channel.

// CHECK-LABEL: func.func @nchw(%arg0: tensor<1x64x56x56xf32>, %arg1: tensor<64xf32>, %arg2: tensor<64xf32>, %arg3: tensor<64xf32>, %arg4: tensor<64xf32>) -> tensor<1x64x56x56xf32> {
// CHECK-NEXT: %0 = quant_qdq.batch_norm "bn1" %arg0, %arg1, %arg2, %arg3, %arg4 : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
// CHECK-NEXT: return %0 : tensor<1x64x56x56xf32>
func.func @nchw(%x: tensor<1x64x56x56xf32>, %s: tensor<64xf32>, %b: tensor<64xf32>, %m: tensor<64xf32>, %v: tensor<64xf32>) -> tensor<1x64x56x56xf32> {
  %y = quant_qdq.batch_norm "bn1" %x, %s, %b, %m, %v : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// Channels last: the parameters index the last axis.
// CHECK-LABEL: func.func @nhwc(%arg0: tensor<1x56x56x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<32xf32>) -> tensor<1x56x56x32xf32> {
// CHECK-NEXT: %0 = quant_qdq.batch_norm %arg0, %arg1, %arg2, %arg3, %arg4 {epsilon = 1.000000e-03 : f32, layout = #quant_qdq<layout nhwc>} : (tensor<1x56x56x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x56x56x32xf32>
// CHECK-NEXT: return %0 : tensor<1x56x56x32xf32>
func.func @nhwc(%x: tensor<1x56x56x32xf32>, %s: tensor<32xf32>, %b: tensor<32xf32>, %m: tensor<32xf32>, %v: tensor<32xf32>) -> tensor<1x56x56x32xf32> {
  %y = quant_qdq.batch_norm %x, %s, %b, %m, %v {epsilon = 1.000000e-03 : f32, layout = #quant_qdq<layout nhwc>} : (tensor<1x56x56x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x56x56x32xf32>
  return %y : tensor<1x56x56x32xf32>
}

// The default epsilon, 1e-5, is not printed.
// CHECK-LABEL: func.func @default_epsilon(%arg0: tensor<2x8xf32>, %arg1: tensor<8xf32>) -> tensor<2x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.batch_norm %arg0, %arg1, %arg1, %arg1, %arg1 : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: return %0 : tensor<2x8xf32>
func.func @default_epsilon(%x: tensor<2x8xf32>, %p: tensor<8xf32>) -> tensor<2x8xf32> {
  %y = quant_qdq.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// BatchNorm1d over a sequence, and dynamic channels.
// CHECK-LABEL: func.func @rank3_dynamic(%arg0: tensor<4x?x100xf32>, %arg1: tensor<16xf32>, %arg2: tensor<?xf32>) -> tensor<4x?x100xf32> {
// CHECK-NEXT: %0 = quant_qdq.batch_norm %arg0, %arg1, %arg2, %arg1, %arg2 : (tensor<4x?x100xf32>, tensor<16xf32>, tensor<?xf32>, tensor<16xf32>, tensor<?xf32>) -> tensor<4x?x100xf32>
// CHECK-NEXT: return %0 : tensor<4x?x100xf32>
func.func @rank3_dynamic(%x: tensor<4x?x100xf32>, %p: tensor<16xf32>, %q: tensor<?xf32>) -> tensor<4x?x100xf32> {
  %y = quant_qdq.batch_norm %x, %p, %q, %p, %q : (tensor<4x?x100xf32>, tensor<16xf32>, tensor<?xf32>, tensor<16xf32>, tensor<?xf32>) -> tensor<4x?x100xf32>
  return %y : tensor<4x?x100xf32>
}
