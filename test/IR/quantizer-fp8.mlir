// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// FP8 E4M3FN storage: the quantized tensor is f8E4M3FN; per tensor, per
// axis, and folded only where exact (never for FP8).

// CHECK-LABEL: func.func @fp8
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 8, storage = e4m3fn> scale [5.000000e-01] : tensor<4xf32> -> tensor<4xf8E4M3FN>
// CHECK-NEXT: %1 = quant_qdq.dequantize %0 <bits = 8, storage = e4m3fn> scale [5.000000e-01] : tensor<4xf8E4M3FN> -> tensor<4xf32>
func.func @fp8(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant_qdq.quantize %x <bits = 8, storage = e4m3fn> scale [0.5] : tensor<4xf32> -> tensor<4xf8E4M3FN>
  %d = quant_qdq.dequantize %q <bits = 8, storage = e4m3fn> scale [0.5] : tensor<4xf8E4M3FN> -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// CHECK-LABEL: func.func @fp8_per_axis
// CHECK: quant_qdq.fake_quant %arg0 <bits = 8, axis = 0, storage = e4m3fn> scale [1.000000e+00, 2.000000e+00] : tensor<2x3xf32>
func.func @fp8_per_axis(%w: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %f = quant_qdq.fake_quant %w <bits = 8, axis = 0, storage = e4m3fn> scale [1.0, 2.0] : tensor<2x3xf32>
  return %f : tensor<2x3xf32>
}
