// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// quant_qdq.dequantize: integer storage back to float.

// CHECK-LABEL: func.func @per_tensor(%arg0: tensor<1x64x56x56xi8>) -> tensor<1x64x56x56xf32> {
// CHECK-NEXT: %0 = quant_qdq.dequantize %arg0 <bits = 8> scale [4.720000e-02] : tensor<1x64x56x56xi8> -> tensor<1x64x56x56xf32>
// CHECK-NEXT: return %0 : tensor<1x64x56x56xf32>
func.func @per_tensor(%q: tensor<1x64x56x56xi8>) -> tensor<1x64x56x56xf32> {
  %x = quant_qdq.dequantize %q <bits = 8> scale [0.0472] : tensor<1x64x56x56xi8> -> tensor<1x64x56x56xf32>
  return %x : tensor<1x64x56x56xf32>
}

// CHECK-LABEL: func.func @per_axis(%arg0: tensor<3x2xi8>) -> tensor<3x2xf32> {
// CHECK-NEXT: %0 = quant_qdq.dequantize %arg0 <bits = 8, axis = 1> scale [5.000000e-01, 2.000000e+00] : tensor<3x2xi8> -> tensor<3x2xf32>
// CHECK-NEXT: return %0 : tensor<3x2xf32>
func.func @per_axis(%q: tensor<3x2xi8>) -> tensor<3x2xf32> {
  %x = quant_qdq.dequantize %q <bits = 8, axis = 1> scale [0.5, 2.0] : tensor<3x2xi8> -> tensor<3x2xf32>
  return %x : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @asymmetric_unsigned(%arg0: tensor<8xi8>) -> tensor<8xbf16> {
// CHECK-NEXT: %0 = quant_qdq.dequantize %arg0 <bits = 8, is_signed = false, symmetric = false> scale [2.000000e-02] zero_point [128] : tensor<8xi8> -> tensor<8xbf16>
// CHECK-NEXT: return %0 : tensor<8xbf16>
func.func @asymmetric_unsigned(%q: tensor<8xi8>) -> tensor<8xbf16> {
  %x = quant_qdq.dequantize %q <bits = 8, is_signed = false, symmetric = false> scale [0.02] zero_point [128] : tensor<8xi8> -> tensor<8xbf16>
  return %x : tensor<8xbf16>
}

// CHECK-LABEL: func.func @uncalibrated(%arg0: tensor<8xi8>) -> tensor<8xf32> {
// CHECK-NEXT: %0 = quant_qdq.dequantize %arg0 <bits = 8> : tensor<8xi8> -> tensor<8xf32>
// CHECK-NEXT: return %0 : tensor<8xf32>
func.func @uncalibrated(%q: tensor<8xi8>) -> tensor<8xf32> {
  %x = quant_qdq.dequantize %q <bits = 8> : tensor<8xi8> -> tensor<8xf32>
  return %x : tensor<8xf32>
}

// A Q/DQ pair as the insertion pass writes it.
// CHECK-LABEL: func.func @pair(%arg0: tensor<1x8xf32>) -> tensor<1x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 8> scale [1.000000e-01] : tensor<1x8xf32> -> tensor<1x8xi8>
// CHECK-NEXT: %1 = quant_qdq.dequantize %0 <bits = 8> scale [1.000000e-01] : tensor<1x8xi8> -> tensor<1x8xf32>
// CHECK-NEXT: return %1 : tensor<1x8xf32>
func.func @pair(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %q = quant_qdq.quantize %x <bits = 8> scale [0.1] : tensor<1x8xf32> -> tensor<1x8xi8>
  %y = quant_qdq.dequantize %q <bits = 8> scale [0.1] : tensor<1x8xi8> -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}
