// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// With transpose_weight the weight is N x K (ONNX Gemm transB = 1, PyTorch
// Linear): the output has N = weight dim 0 units.

// CHECK-LABEL: func.func @linear(%arg0: tensor<4x512xf32>, %arg1: tensor<10x512xf32>, %arg2: tensor<10xf32>) -> tensor<4x10xf32> {
// CHECK-NEXT: %0 = quant_qdq.dense "fc" %arg0, %arg1, %arg2 {transpose_weight} : (tensor<4x512xf32>, tensor<10x512xf32>, tensor<10xf32>) -> tensor<4x10xf32>
// CHECK-NEXT: return %0 : tensor<4x10xf32>
func.func @linear(%x: tensor<4x512xf32>, %w: tensor<10x512xf32>, %b: tensor<10xf32>) -> tensor<4x10xf32> {
  %y = quant_qdq.dense "fc" %x, %w, %b {transpose_weight} : (tensor<4x512xf32>, tensor<10x512xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  return %y : tensor<4x10xf32>
}
// GENERIC: "quant_qdq.dense"(%{{.*}}, %{{.*}}, %{{.*}}) <{name = "fc", transpose_weight}> : (tensor<4x512xf32>, tensor<10x512xf32>, tensor<10xf32>) -> tensor<4x10xf32>

// The same weight shape without the flag is K x N.
// CHECK-LABEL: func.func @square_like(%arg0: tensor<4x10xf32>, %arg1: tensor<10x512xf32>) -> tensor<4x512xf32> {
// CHECK-NEXT: %0 = quant_qdq.dense %arg0, %arg1 : (tensor<4x10xf32>, tensor<10x512xf32>) -> tensor<4x512xf32>
// CHECK-NEXT: return %0 : tensor<4x512xf32>
func.func @square_like(%x: tensor<4x10xf32>, %w: tensor<10x512xf32>) -> tensor<4x512xf32> {
  %y = quant_qdq.dense %x, %w : (tensor<4x10xf32>, tensor<10x512xf32>) -> tensor<4x512xf32>
  return %y : tensor<4x512xf32>
}
// GENERIC: "quant_qdq.dense"(%{{.*}}, %{{.*}}) : (tensor<4x10xf32>, tensor<10x512xf32>) -> tensor<4x512xf32>

// CHECK-LABEL: func.func @linear_dynamic_units(%arg0: tensor<4x512xf32>, %arg1: tensor<?x512xf32>) -> tensor<4x?xf32> {
// CHECK-NEXT: %0 = quant_qdq.dense %arg0, %arg1 {transpose_weight} : (tensor<4x512xf32>, tensor<?x512xf32>) -> tensor<4x?xf32>
// CHECK-NEXT: return %0 : tensor<4x?xf32>
func.func @linear_dynamic_units(%x: tensor<4x512xf32>, %w: tensor<?x512xf32>) -> tensor<4x?xf32> {
  %y = quant_qdq.dense %x, %w {transpose_weight} : (tensor<4x512xf32>, tensor<?x512xf32>) -> tensor<4x?xf32>
  return %y : tensor<4x?xf32>
}
