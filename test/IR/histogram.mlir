// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// quant_qdq.histogram: calibration's counts of |x|, one row of `bins`
// counts per row of the input (its first dimension; one row below rank 2).
// The result type follows from the input and `bins`.

// CHECK-LABEL: func.func @rows
// CHECK-NEXT: %0 = quant_qdq.histogram %arg0 bins 2048 bin_scale 5.120000e+02 : tensor<4x64x7x7xf32>
// CHECK-NEXT: return %0 : tensor<4x2048xi64>
func.func @rows(%x: tensor<4x64x7x7xf32>) -> tensor<4x2048xi64> {
  %h = quant_qdq.histogram %x bins 2048 bin_scale 512.0 : tensor<4x64x7x7xf32>
  return %h : tensor<4x2048xi64>
}

// CHECK-LABEL: func.func @one_row
// CHECK: quant_qdq.histogram %arg0 bins 8 bin_scale 1.000000e+00 : tensor<100xf32>
// CHECK-NEXT: return %{{.*}} : tensor<1x8xi64>
func.func @one_row(%x: tensor<100xf32>) -> tensor<1x8xi64> {
  %h = quant_qdq.histogram %x bins 8 bin_scale 1.0 : tensor<100xf32>
  return %h : tensor<1x8xi64>
}

// A dynamic batch: as many rows as samples, known once the batch is.
// CHECK-LABEL: func.func @dynamic
// CHECK-NEXT: %0 = quant_qdq.histogram %arg0 bins 16 bin_scale 2.000000e+00 : tensor<?x10xf32>
// CHECK-NEXT: return %0 : tensor<?x16xi64>
func.func @dynamic(%x: tensor<?x10xf32>) -> tensor<?x16xi64> {
  %h = quant_qdq.histogram %x bins 16 bin_scale 2.0 : tensor<?x10xf32>
  return %h : tensor<?x16xi64>
}
