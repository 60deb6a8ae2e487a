// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Element-wise sum with NumPy broadcasting.

// CHECK-LABEL: func.func @residual(%arg0: tensor<1x256x56x56xf32>, %arg1: tensor<1x256x56x56xf32>) -> tensor<1x256x56x56xf32> {
// CHECK-NEXT: %0 = quant_qdq.add "add1" %arg0, %arg1 : (tensor<1x256x56x56xf32>, tensor<1x256x56x56xf32>) -> tensor<1x256x56x56xf32>
// CHECK-NEXT: return %0 : tensor<1x256x56x56xf32>
func.func @residual(%a: tensor<1x256x56x56xf32>, %b: tensor<1x256x56x56xf32>) -> tensor<1x256x56x56xf32> {
  %y = quant_qdq.add "add1" %a, %b : (tensor<1x256x56x56xf32>, tensor<1x256x56x56xf32>) -> tensor<1x256x56x56xf32>
  return %y : tensor<1x256x56x56xf32>
}

// Size-1 dimensions stretch; missing leading dimensions are added.
// CHECK-LABEL: func.func @broadcast(%arg0: tensor<8x1x6x1xf32>, %arg1: tensor<7x1x5xf32>) -> tensor<8x7x6x5xf32> {
// CHECK-NEXT: %0 = quant_qdq.add %arg0, %arg1 : (tensor<8x1x6x1xf32>, tensor<7x1x5xf32>) -> tensor<8x7x6x5xf32>
// CHECK-NEXT: return %0 : tensor<8x7x6x5xf32>
func.func @broadcast(%a: tensor<8x1x6x1xf32>, %b: tensor<7x1x5xf32>) -> tensor<8x7x6x5xf32> {
  %y = quant_qdq.add %a, %b : (tensor<8x1x6x1xf32>, tensor<7x1x5xf32>) -> tensor<8x7x6x5xf32>
  return %y : tensor<8x7x6x5xf32>
}

// CHECK-LABEL: func.func @scalar_operand(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %0 = quant_qdq.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %0 : tensor<2x3xf32>
func.func @scalar_operand(%a: tensor<2x3xf32>, %b: tensor<f32>) -> tensor<2x3xf32> {
  %y = quant_qdq.add %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @three_inputs(%arg0: tensor<4x1xf32>, %arg1: tensor<1x5xf32>, %arg2: tensor<5xf32>) -> tensor<4x5xf32> {
// CHECK-NEXT: %0 = quant_qdq.add %arg0, %arg1, %arg2 : (tensor<4x1xf32>, tensor<1x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT: return %0 : tensor<4x5xf32>
func.func @three_inputs(%a: tensor<4x1xf32>, %b: tensor<1x5xf32>, %c: tensor<5xf32>) -> tensor<4x5xf32> {
  %y = quant_qdq.add %a, %b, %c : (tensor<4x1xf32>, tensor<1x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// CHECK-LABEL: func.func @dynamic(%arg0: tensor<?x16xf32>, %arg1: tensor<1x16xf32>) -> tensor<?x16xf32> {
// CHECK-NEXT: %0 = quant_qdq.add %arg0, %arg1 : (tensor<?x16xf32>, tensor<1x16xf32>) -> tensor<?x16xf32>
// CHECK-NEXT: return %0 : tensor<?x16xf32>
func.func @dynamic(%a: tensor<?x16xf32>, %b: tensor<1x16xf32>) -> tensor<?x16xf32> {
  %y = quant_qdq.add %a, %b : (tensor<?x16xf32>, tensor<1x16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
