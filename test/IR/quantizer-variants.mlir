// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// The quantizer parameters: bit width, signedness, narrow range, symmetry
// and axis, with the storage type and the zero point ranges they imply.

// Unsigned 8-bit storage: zero points may use all of [0, 255], and a
// symmetric unsigned quantizer may have a non-zero zero point.
// CHECK-LABEL: func.func @unsigned(%arg0: tensor<4xf32>) -> tensor<4xi8> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 8, is_signed = false> scale [1.000000e-01] zero_point [255] : tensor<4xf32> -> tensor<4xi8>
// CHECK-NEXT: return %0 : tensor<4xi8>
func.func @unsigned(%x: tensor<4xf32>) -> tensor<4xi8> {
  %q = quant_qdq.quantize %x <bits = 8, is_signed = false> scale [0.1] zero_point [255] : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// CHECK-LABEL: func.func @unsigned_zero_point_zero(%arg0: tensor<4xf32>) -> tensor<4xi8> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 8, is_signed = false, narrow_range = false, symmetric = false> scale [1.000000e-01] zero_point [0] : tensor<4xf32> -> tensor<4xi8>
// CHECK-NEXT: return %0 : tensor<4xi8>
func.func @unsigned_zero_point_zero(%x: tensor<4xf32>) -> tensor<4xi8> {
  %q = quant_qdq.quantize %x <bits = 8, is_signed = false, narrow_range = false, symmetric = false> scale [0.1] zero_point [0] : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// 4-bit storage in i4; asymmetric zero points in [-8, 7], narrow range
// or not (the zero point may be the storage minimum even then).
// CHECK-LABEL: func.func @int4(%arg0: tensor<2x4xf32>) -> tensor<2x4xi4> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 4, symmetric = false, axis = 0> scale [2.500000e-01, 5.000000e-01] zero_point [-8, 7] : tensor<2x4xf32> -> tensor<2x4xi4>
// CHECK-NEXT: return %0 : tensor<2x4xi4>
func.func @int4(%x: tensor<2x4xf32>) -> tensor<2x4xi4> {
  %q = quant_qdq.quantize %x <bits = 4, symmetric = false, axis = 0> scale [0.25, 0.5] zero_point [-8, 7] : tensor<2x4xf32> -> tensor<2x4xi4>
  return %q : tensor<2x4xi4>
}

// CHECK-LABEL: func.func @uint4(%arg0: tensor<2x4xf32>) -> tensor<2x4xi4> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 4, is_signed = false, symmetric = false> scale [2.500000e-01] zero_point [15] : tensor<2x4xf32> -> tensor<2x4xi4>
// CHECK-NEXT: return %0 : tensor<2x4xi4>
func.func @uint4(%x: tensor<2x4xf32>) -> tensor<2x4xi4> {
  %q = quant_qdq.quantize %x <bits = 4, is_signed = false, symmetric = false> scale [0.25] zero_point [15] : tensor<2x4xf32> -> tensor<2x4xi4>
  return %q : tensor<2x4xi4>
}

// 16-bit storage.
// CHECK-LABEL: func.func @int16(%arg0: tensor<8xf32>) -> tensor<8xi16> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 16, symmetric = false> scale [3.000000e-05] zero_point [-32768] : tensor<8xf32> -> tensor<8xi16>
// CHECK-NEXT: return %0 : tensor<8xi16>
func.func @int16(%x: tensor<8xf32>) -> tensor<8xi16> {
  %q = quant_qdq.quantize %x <bits = 16, symmetric = false> scale [3.0e-05] zero_point [-32768] : tensor<8xf32> -> tensor<8xi16>
  return %q : tensor<8xi16>
}

// CHECK-LABEL: func.func @uint16(%arg0: tensor<8xi16>) -> tensor<8xf32> {
// CHECK-NEXT: %0 = quant_qdq.dequantize %arg0 <bits = 16, is_signed = false, narrow_range = false> scale [1.000000e+00] zero_point [65535] : tensor<8xi16> -> tensor<8xf32>
// CHECK-NEXT: return %0 : tensor<8xf32>
func.func @uint16(%q: tensor<8xi16>) -> tensor<8xf32> {
  %x = quant_qdq.dequantize %q <bits = 16, is_signed = false, narrow_range = false> scale [1.0] zero_point [65535] : tensor<8xi16> -> tensor<8xf32>
  return %x : tensor<8xf32>
}

// The extremes of the bit width range: 2 and 16.
// CHECK-LABEL: func.func @int2(%arg0: tensor<8xf32>) -> tensor<8xi2> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 2> scale [1.000000e+00] : tensor<8xf32> -> tensor<8xi2>
// CHECK-NEXT: return %0 : tensor<8xi2>
func.func @int2(%x: tensor<8xf32>) -> tensor<8xi2> {
  %q = quant_qdq.quantize %x <bits = 2> scale [1.0] : tensor<8xf32> -> tensor<8xi2>
  return %q : tensor<8xi2>
}

// Asymmetric per-axis zero points, one per slice.
// CHECK-LABEL: func.func @asymmetric_per_axis(%arg0: tensor<3x2xf32>) -> tensor<3x2xi8> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 8, narrow_range = false, symmetric = false, axis = 0> scale [1.000000e-01, 2.000000e-01, 3.000000e-01] zero_point [-128, 0, 127] : tensor<3x2xf32> -> tensor<3x2xi8>
// CHECK-NEXT: return %0 : tensor<3x2xi8>
func.func @asymmetric_per_axis(%x: tensor<3x2xf32>) -> tensor<3x2xi8> {
  %q = quant_qdq.quantize %x <bits = 8, narrow_range = false, symmetric = false, axis = 0> scale [0.1, 0.2, 0.3] zero_point [-128, 0, 127] : tensor<3x2xf32> -> tensor<3x2xi8>
  return %q : tensor<3x2xi8>
}

// Uncalibrated: no scale and no zero point yet.
// CHECK-LABEL: func.func @uncalibrated(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xi8> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 8> : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xi8>
// CHECK-NEXT: return %0 : tensor<1x3x8x8xi8>
func.func @uncalibrated(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xi8> {
  %q = quant_qdq.quantize %x <bits = 8> : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xi8>
  return %q : tensor<1x3x8x8xi8>
}

// CHECK-LABEL: func.func @uncalibrated_per_axis(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xi8> {
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 8, axis = 1> : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xi8>
// CHECK-NEXT: return %0 : tensor<1x3x8x8xi8>
func.func @uncalibrated_per_axis(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xi8> {
  %q = quant_qdq.quantize %x <bits = 8, axis = 1> : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xi8>
  return %q : tensor<1x3x8x8xi8>
}
