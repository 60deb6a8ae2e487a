// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// quant_qdq.fake_quant: quantize and dequantize in one op, staying in float.

// CHECK-LABEL: func.func @per_tensor(%arg0: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.fake_quant %arg0 <bits = 8> scale [2.350000e-02] : tensor<1x16x8x8xf32>
// CHECK-NEXT: return %0 : tensor<1x16x8x8xf32>
func.func @per_tensor(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %y = quant_qdq.fake_quant %x <bits = 8> scale [0.0235] : tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}

// CHECK-LABEL: func.func @per_axis(%arg0: tensor<2x16x3x3xf32>) -> tensor<2x16x3x3xf32> {
// CHECK-NEXT: %0 = quant_qdq.fake_quant %arg0 <bits = 8, axis = 0> scale [1.000000e-03, 2.000000e-03] : tensor<2x16x3x3xf32>
// CHECK-NEXT: return %0 : tensor<2x16x3x3xf32>
func.func @per_axis(%w: tensor<2x16x3x3xf32>) -> tensor<2x16x3x3xf32> {
  %y = quant_qdq.fake_quant %w <bits = 8, axis = 0> scale [0.001, 0.002] : tensor<2x16x3x3xf32>
  return %y : tensor<2x16x3x3xf32>
}

// CHECK-LABEL: func.func @uncalibrated(%arg0: tensor<?x?xf16>) -> tensor<?x?xf16> {
// CHECK-NEXT: %0 = quant_qdq.fake_quant %arg0 <bits = 8, axis = 1> : tensor<?x?xf16>
// CHECK-NEXT: return %0 : tensor<?x?xf16>
func.func @uncalibrated(%x: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %y = quant_qdq.fake_quant %x <bits = 8, axis = 1> : tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}

// CHECK-LABEL: func.func @asymmetric_4bit(%arg0: tensor<10xf32>) -> tensor<10xf32> {
// CHECK-NEXT: %0 = quant_qdq.fake_quant %arg0 <bits = 4, narrow_range = false, symmetric = false> scale [5.000000e-01] zero_point [-3] : tensor<10xf32>
// CHECK-NEXT: return %0 : tensor<10xf32>
func.func @asymmetric_4bit(%x: tensor<10xf32>) -> tensor<10xf32> {
  %y = quant_qdq.fake_quant %x <bits = 4, narrow_range = false, symmetric = false> scale [0.5] zero_point [-3] : tensor<10xf32>
  return %y : tensor<10xf32>
}
