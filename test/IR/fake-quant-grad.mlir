// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// quant_qdq.fake_quant_grad: the straight-through gradient of fake_quant.

// CHECK-LABEL: func.func @per_tensor(%arg0: tensor<1x16x8x8xf32>, %arg1: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.fake_quant_grad %arg0, %arg1 <bits = 8> scale [2.350000e-02] : tensor<1x16x8x8xf32>
func.func @per_tensor(%x: tensor<1x16x8x8xf32>, %dy: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %dx = quant_qdq.fake_quant_grad %x, %dy <bits = 8> scale [0.0235] : tensor<1x16x8x8xf32>
  return %dx : tensor<1x16x8x8xf32>
}

// CHECK-LABEL: func.func @per_axis_bf16
// CHECK-NEXT: %0 = quant_qdq.fake_quant_grad %arg0, %arg1 <bits = 4, narrow_range = false, symmetric = false, axis = 1> scale [5.000000e-01, 2.500000e-01] zero_point [-3, 2] : tensor<3x2xbf16>
func.func @per_axis_bf16(%x: tensor<3x2xbf16>, %dy: tensor<3x2xbf16>) -> tensor<3x2xbf16> {
  %dx = quant_qdq.fake_quant_grad %x, %dy <bits = 4, narrow_range = false, symmetric = false, axis = 1> scale [0.5, 0.25] zero_point [-3, 2] : tensor<3x2xbf16>
  return %dx : tensor<3x2xbf16>
}
