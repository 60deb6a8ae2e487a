// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Dropout stays in the graph (identity at inference); rate defaults to 0.5.

// CHECK-LABEL: func.func @default_rate(%arg0: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
// CHECK-NEXT: %0 = quant_qdq.dropout "drop6" %arg0 : (tensor<1x4096xf32>) -> tensor<1x4096xf32>
// CHECK-NEXT: return %0 : tensor<1x4096xf32>
func.func @default_rate(%x: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  %0 = quant_qdq.dropout "drop6" %x : (tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %0 : tensor<1x4096xf32>
}

// CHECK-LABEL: func.func @explicit_default_rate(%arg0: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
// CHECK-NEXT: %0 = quant_qdq.dropout %arg0 : (tensor<1x4096xf32>) -> tensor<1x4096xf32>
// CHECK-NEXT: return %0 : tensor<1x4096xf32>
func.func @explicit_default_rate(%x: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  %0 = quant_qdq.dropout %x {rate = 0.5 : f32} : (tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %0 : tensor<1x4096xf32>
}

// CHECK-LABEL: func.func @rates(%arg0: tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32> {
// CHECK-NEXT: %0 = quant_qdq.dropout %arg0 {rate = 0.000000e+00 : f32} : (tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32>
// CHECK-NEXT: %1 = quant_qdq.dropout %0 {rate = 2.000000e-01 : f32} : (tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32>
// CHECK-NEXT: %2 = quant_qdq.dropout %1 {rate = 9.900000e-01 : f32} : (tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32>
// CHECK-NEXT: return %2 : tensor<?x8x8x32xf32>
func.func @rates(%x: tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32> {
  %0 = quant_qdq.dropout %x {rate = 0.0 : f32} : (tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32>
  %1 = quant_qdq.dropout %0 {rate = 0.2 : f32} : (tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32>
  %2 = quant_qdq.dropout %1 {rate = 0.99 : f32} : (tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32>
  return %2 : tensor<?x8x8x32xf32>
}
