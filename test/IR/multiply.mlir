// RUN: qdq-opt %s | qdq-opt | FileCheck %s

// Element-wise product with broadcasting: squeeze-and-excitation scaling.

// CHECK-LABEL: func.func @squeeze_excite(%arg0: tensor<1x96x28x28xf32>, %arg1: tensor<1x96x1x1xf32>) -> tensor<1x96x28x28xf32> {
// CHECK-NEXT: %0 = quant_qdq.multiply "se_scale" %arg0, %arg1 : (tensor<1x96x28x28xf32>, tensor<1x96x1x1xf32>) -> tensor<1x96x28x28xf32>
// CHECK-NEXT: return %0 : tensor<1x96x28x28xf32>
func.func @squeeze_excite(%x: tensor<1x96x28x28xf32>, %s: tensor<1x96x1x1xf32>) -> tensor<1x96x28x28xf32> {
  %y = quant_qdq.multiply "se_scale" %x, %s : (tensor<1x96x28x28xf32>, tensor<1x96x1x1xf32>) -> tensor<1x96x28x28xf32>
  return %y : tensor<1x96x28x28xf32>
}

// The size-1 operand may come first.
// CHECK-LABEL: func.func @broadcast_first(%arg0: tensor<1x96x1x1xf32>, %arg1: tensor<2x96x7x7xf32>) -> tensor<2x96x7x7xf32> {
// CHECK-NEXT: %0 = quant_qdq.multiply %arg0, %arg1 : (tensor<1x96x1x1xf32>, tensor<2x96x7x7xf32>) -> tensor<2x96x7x7xf32>
// CHECK-NEXT: return %0 : tensor<2x96x7x7xf32>
func.func @broadcast_first(%s: tensor<1x96x1x1xf32>, %x: tensor<2x96x7x7xf32>) -> tensor<2x96x7x7xf32> {
  %y = quant_qdq.multiply %s, %x : (tensor<1x96x1x1xf32>, tensor<2x96x7x7xf32>) -> tensor<2x96x7x7xf32>
  return %y : tensor<2x96x7x7xf32>
}

// CHECK-LABEL: func.func @three_inputs(%arg0: tensor<2x1x3xf32>, %arg1: tensor<4x1xf32>, %arg2: tensor<1x1x1xf32>) -> tensor<2x4x3xf32> {
// CHECK-NEXT: %0 = quant_qdq.multiply %arg0, %arg1, %arg2 : (tensor<2x1x3xf32>, tensor<4x1xf32>, tensor<1x1x1xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT: return %0 : tensor<2x4x3xf32>
func.func @three_inputs(%a: tensor<2x1x3xf32>, %b: tensor<4x1xf32>, %c: tensor<1x1x1xf32>) -> tensor<2x4x3xf32> {
  %y = quant_qdq.multiply %a, %b, %c : (tensor<2x1x3xf32>, tensor<4x1xf32>, tensor<1x1x1xf32>) -> tensor<2x4x3xf32>
  return %y : tensor<2x4x3xf32>
}
