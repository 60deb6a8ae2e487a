// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// quant_qdq.quantize: float to integer storage as wide as the quantizer.
// Quantizer parameters at their defaults (signed, narrow range, symmetric,
// per tensor) are not printed.

// CHECK-LABEL: func.func @per_tensor(%arg0: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xi8> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 8> scale [4.720000e-02] : tensor<1x64x56x56xf32> -> tensor<1x64x56x56xi8>
// CHECK-NEXT: return %0 : tensor<1x64x56x56xi8>
func.func @per_tensor(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xi8> {
  %q = quant_qdq.quantize %x <bits = 8> scale [0.0472] : tensor<1x64x56x56xf32> -> tensor<1x64x56x56xi8>
  return %q : tensor<1x64x56x56xi8>
}

// CHECK-LABEL: func.func @explicit_defaults(%arg0: tensor<4xf32>) -> tensor<4xi8> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 8> scale [1.000000e+00] : tensor<4xf32> -> tensor<4xi8>
// CHECK-NEXT: return %0 : tensor<4xi8>
func.func @explicit_defaults(%x: tensor<4xf32>) -> tensor<4xi8> {
  %q = quant_qdq.quantize %x <bits = 8, is_signed = true, narrow_range = true, symmetric = true> scale [1.0] : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// Per-axis: one scale per output channel of an OIHW weight.
// CHECK-LABEL: func.func @per_axis(%arg0: tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xi8> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 8, axis = 0> scale [1.000000e-02, 2.000000e-02, 3.000000e-02, 4.000000e-02] : tensor<4x3x3x3xf32> -> tensor<4x3x3x3xi8>
// CHECK-NEXT: return %0 : tensor<4x3x3x3xi8>
func.func @per_axis(%w: tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xi8> {
  %q = quant_qdq.quantize %w <bits = 8, axis = 0> scale [0.01, 0.02, 0.03, 0.04] : tensor<4x3x3x3xf32> -> tensor<4x3x3x3xi8>
  return %q : tensor<4x3x3x3xi8>
}

// Per-axis along the last axis of an HWIO weight.
// CHECK-LABEL: func.func @per_axis_last(%arg0: tensor<3x3x8x2xf32>) -> tensor<3x3x8x2xi8> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 8, axis = 3> scale [5.000000e-01, 2.500000e-01] : tensor<3x3x8x2xf32> -> tensor<3x3x8x2xi8>
// CHECK-NEXT: return %0 : tensor<3x3x8x2xi8>
func.func @per_axis_last(%w: tensor<3x3x8x2xf32>) -> tensor<3x3x8x2xi8> {
  %q = quant_qdq.quantize %w <bits = 8, axis = 3> scale [0.5, 0.25] : tensor<3x3x8x2xf32> -> tensor<3x3x8x2xi8>
  return %q : tensor<3x3x8x2xi8>
}

// Symmetric signed quantizers accept explicit zero points of 0.
// CHECK-LABEL: func.func @zero_zero_point(%arg0: tensor<2xf32>) -> tensor<2xi8> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 8> scale [1.000000e-01] zero_point [0] : tensor<2xf32> -> tensor<2xi8>
// CHECK-NEXT: return %0 : tensor<2xi8>
func.func @zero_zero_point(%x: tensor<2xf32>) -> tensor<2xi8> {
  %q = quant_qdq.quantize %x <bits = 8> scale [0.1] zero_point [0] : tensor<2xf32> -> tensor<2xi8>
  return %q : tensor<2xi8>
}

// The storage shape may be more static than the float shape.
// CHECK-LABEL: func.func @dynamic(%arg0: tensor<?x16xf16>) -> tensor<?x16xi8> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 8> scale [1.250000e-01] : tensor<?x16xf16> -> tensor<?x16xi8>
// CHECK-NEXT: return %0 : tensor<?x16xi8>
func.func @dynamic(%x: tensor<?x16xf16>) -> tensor<?x16xi8> {
  %q = quant_qdq.quantize %x <bits = 8> scale [0.125] : tensor<?x16xf16> -> tensor<?x16xi8>
  return %q : tensor<?x16xi8>
}

// A per-axis quantizer over a dynamic axis: the scale count cannot be checked.
// CHECK-LABEL: func.func @per_axis_dynamic(%arg0: tensor<?x16xf32>) -> tensor<?x16xi8> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 8, axis = 0> scale [1.000000e-01, 2.000000e-01, 3.000000e-01] : tensor<?x16xf32> -> tensor<?x16xi8>
// CHECK-NEXT: return %0 : tensor<?x16xi8>
func.func @per_axis_dynamic(%x: tensor<?x16xf32>) -> tensor<?x16xi8> {
  %q = quant_qdq.quantize %x <bits = 8, axis = 0> scale [0.1, 0.2, 0.3] : tensor<?x16xf32> -> tensor<?x16xi8>
  return %q : tensor<?x16xi8>
}
