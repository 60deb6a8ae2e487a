// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Concatenation: sizes add up along the axis and agree elsewhere.

// CHECK-LABEL: func.func @channels(%arg0: tensor<1x64x28x28xf32>, %arg1: tensor<1x32x28x28xf32>) -> tensor<1x96x28x28xf32> {
// CHECK-NEXT: %0 = quant_qdq.concat "cat" %arg0, %arg1 {axis = 1 : i64} : (tensor<1x64x28x28xf32>, tensor<1x32x28x28xf32>) -> tensor<1x96x28x28xf32>
// CHECK-NEXT: return %0 : tensor<1x96x28x28xf32>
func.func @channels(%a: tensor<1x64x28x28xf32>, %b: tensor<1x32x28x28xf32>) -> tensor<1x96x28x28xf32> {
  %y = quant_qdq.concat "cat" %a, %b {axis = 1 : i64} : (tensor<1x64x28x28xf32>, tensor<1x32x28x28xf32>) -> tensor<1x96x28x28xf32>
  return %y : tensor<1x96x28x28xf32>
}

// Negative axes count from the end: -1 is the channel axis of NHWC.
// CHECK-LABEL: func.func @negative_axis(%arg0: tensor<1x7x7x16xf32>, %arg1: tensor<1x7x7x16xf32>, %arg2: tensor<1x7x7x32xf32>) -> tensor<1x7x7x64xf32> {
// CHECK-NEXT: %0 = quant_qdq.concat %arg0, %arg1, %arg2 {axis = -1 : i64} : (tensor<1x7x7x16xf32>, tensor<1x7x7x16xf32>, tensor<1x7x7x32xf32>) -> tensor<1x7x7x64xf32>
// CHECK-NEXT: return %0 : tensor<1x7x7x64xf32>
func.func @negative_axis(%a: tensor<1x7x7x16xf32>, %b: tensor<1x7x7x16xf32>, %c: tensor<1x7x7x32xf32>) -> tensor<1x7x7x64xf32> {
  %y = quant_qdq.concat %a, %b, %c {axis = -1 : i64} : (tensor<1x7x7x16xf32>, tensor<1x7x7x16xf32>, tensor<1x7x7x32xf32>) -> tensor<1x7x7x64xf32>
  return %y : tensor<1x7x7x64xf32>
}

// CHECK-LABEL: func.func @most_negative_axis(%arg0: tensor<2x3xf32>, %arg1: tensor<5x3xf32>) -> tensor<7x3xf32> {
// CHECK-NEXT: %0 = quant_qdq.concat %arg0, %arg1 {axis = -2 : i64} : (tensor<2x3xf32>, tensor<5x3xf32>) -> tensor<7x3xf32>
// CHECK-NEXT: return %0 : tensor<7x3xf32>
func.func @most_negative_axis(%a: tensor<2x3xf32>, %b: tensor<5x3xf32>) -> tensor<7x3xf32> {
  %y = quant_qdq.concat %a, %b {axis = -2 : i64} : (tensor<2x3xf32>, tensor<5x3xf32>) -> tensor<7x3xf32>
  return %y : tensor<7x3xf32>
}

// A dynamic size along the axis makes the sum dynamic; elsewhere a static
// size from any input wins.
// CHECK-LABEL: func.func @dynamic(%arg0: tensor<?x4x?xf32>, %arg1: tensor<2x?x3xf32>) -> tensor<2x4x?xf32> {
// CHECK-NEXT: %0 = quant_qdq.concat %arg0, %arg1 {axis = 2 : i64} : (tensor<?x4x?xf32>, tensor<2x?x3xf32>) -> tensor<2x4x?xf32>
// CHECK-NEXT: return %0 : tensor<2x4x?xf32>
func.func @dynamic(%a: tensor<?x4x?xf32>, %b: tensor<2x?x3xf32>) -> tensor<2x4x?xf32> {
  %y = quant_qdq.concat %a, %b {axis = 2 : i64} : (tensor<?x4x?xf32>, tensor<2x?x3xf32>) -> tensor<2x4x?xf32>
  return %y : tensor<2x4x?xf32>
}

// CHECK-LABEL: func.func @dynamic_batch(%arg0: tensor<?x8xf32>, %arg1: tensor<?x8xf32>) -> tensor<?x16xf32> {
// CHECK-NEXT: %0 = quant_qdq.concat %arg0, %arg1 {axis = 1 : i64} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x16xf32>
// CHECK-NEXT: return %0 : tensor<?x16xf32>
func.func @dynamic_batch(%a: tensor<?x8xf32>, %b: tensor<?x8xf32>) -> tensor<?x16xf32> {
  %y = quant_qdq.concat %a, %b {axis = 1 : i64} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

// CHECK-LABEL: func.func @single_input(%arg0: tensor<3xf32>) -> tensor<3xf32> {
// CHECK-NEXT: %0 = quant_qdq.concat %arg0 {axis = 0 : i64} : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: return %0 : tensor<3xf32>
func.func @single_input(%a: tensor<3xf32>) -> tensor<3xf32> {
  %y = quant_qdq.concat %a {axis = 0 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
