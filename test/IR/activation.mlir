// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Every activation kind without parameters. The kind prints as a bare
// keyword before the optional name.

// CHECK-LABEL: func.func @kinds(%arg0: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.activation relu "relu1" %arg0 : tensor<1x16x8x8xf32>
// CHECK-NEXT: %1 = quant_qdq.activation relu6 %0 : tensor<1x16x8x8xf32>
// CHECK-NEXT: %2 = quant_qdq.activation sigmoid %1 : tensor<1x16x8x8xf32>
// CHECK-NEXT: %3 = quant_qdq.activation swish "swish" %2 : tensor<1x16x8x8xf32>
// CHECK-NEXT: %4 = quant_qdq.activation hard_swish %3 : tensor<1x16x8x8xf32>
// CHECK-NEXT: %5 = quant_qdq.activation tanh %4 : tensor<1x16x8x8xf32>
// CHECK-NEXT: %6 = quant_qdq.activation gelu %5 : tensor<1x16x8x8xf32>
// CHECK-NEXT: %7 = quant_qdq.activation softplus %6 : tensor<1x16x8x8xf32>
// CHECK-NEXT: %8 = quant_qdq.activation linear %7 : tensor<1x16x8x8xf32>
// CHECK-NEXT: return %8 : tensor<1x16x8x8xf32>
func.func @kinds(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %0 = quant_qdq.activation relu "relu1" %x : tensor<1x16x8x8xf32>
  %1 = quant_qdq.activation relu6 %0 : tensor<1x16x8x8xf32>
  %2 = quant_qdq.activation sigmoid %1 : tensor<1x16x8x8xf32>
  %3 = quant_qdq.activation swish "swish" %2 : tensor<1x16x8x8xf32>
  %4 = quant_qdq.activation hard_swish %3 : tensor<1x16x8x8xf32>
  %5 = quant_qdq.activation tanh %4 : tensor<1x16x8x8xf32>
  %6 = quant_qdq.activation gelu %5 : tensor<1x16x8x8xf32>
  %7 = quant_qdq.activation softplus %6 : tensor<1x16x8x8xf32>
  %8 = quant_qdq.activation linear %7 : tensor<1x16x8x8xf32>
  return %8 : tensor<1x16x8x8xf32>
}

// Kinds that take parameters may also go without them (the defaults apply).
// CHECK-LABEL: func.func @default_parameters(%arg0: tensor<?x10xf16>) -> tensor<?x10xf16> {
// CHECK-NEXT: %0 = quant_qdq.activation leaky_relu %arg0 : tensor<?x10xf16>
// CHECK-NEXT: %1 = quant_qdq.activation hard_sigmoid %0 : tensor<?x10xf16>
// CHECK-NEXT: %2 = quant_qdq.activation elu %1 : tensor<?x10xf16>
// CHECK-NEXT: return %2 : tensor<?x10xf16>
func.func @default_parameters(%x: tensor<?x10xf16>) -> tensor<?x10xf16> {
  %0 = quant_qdq.activation leaky_relu %x : tensor<?x10xf16>
  %1 = quant_qdq.activation hard_sigmoid %0 : tensor<?x10xf16>
  %2 = quant_qdq.activation elu %1 : tensor<?x10xf16>
  return %2 : tensor<?x10xf16>
}

// CHECK-LABEL: func.func @scalar(%arg0: tensor<f32>) -> tensor<f32> {
// CHECK-NEXT: %0 = quant_qdq.activation relu %arg0 : tensor<f32>
// CHECK-NEXT: return %0 : tensor<f32>
func.func @scalar(%x: tensor<f32>) -> tensor<f32> {
  %0 = quant_qdq.activation relu %x : tensor<f32>
  return %0 : tensor<f32>
}
