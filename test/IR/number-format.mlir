// RUN: qdq-opt %s --allow-unregistered-dialect | qdq-opt --allow-unregistered-dialect | FileCheck %s
// RUN: qdq-opt %s --allow-unregistered-dialect --mlir-print-op-generic | qdq-opt --allow-unregistered-dialect | FileCheck %s

// TensorQuant's number formats print and parse back; parameters left out
// keep their defaults (nearest rounding, marginal 1, ternary's threshold
// from the tensor).

// CHECK-LABEL: func.func @formats
// CHECK-NEXT: %0 = quant_qdq.round_to_format %arg0 <fixed_point, bits = 16, fraction_bits = 8> : tensor<4xf32>
// CHECK-NEXT: %1 = quant_qdq.round_to_format %0 <fixed_point, bits = 8, fraction_bits = -2, rounding = stochastic, seed = 7> : tensor<4xf32>
// CHECK-NEXT: %2 = quant_qdq.round_to_format %1 <binary, marginal = 2.500000e-01> : tensor<4xf32>
// CHECK-NEXT: %3 = quant_qdq.round_to_format %2 <ternary, marginal = 5.000000e-01, threshold = 2.500000e-01> : tensor<4xf32>
// CHECK-NEXT: %4 = quant_qdq.round_to_format %3 <ternary> : tensor<4xf32>
// CHECK-NEXT: %5 = quant_qdq.round_to_format %4 <logarithmic> : tensor<4xf32>
// CHECK-NEXT: %6 = quant_qdq.round_to_format %5 <sparse, threshold = 1.250000e-01> : tensor<4xf32>
// CHECK-NEXT: %7 = quant_qdq.round_to_format %6 <half> : tensor<4xf32>
// CHECK-NEXT: %8 = quant_qdq.round_to_format %7 <fixed_point, bits = 4, fraction_bits = 0, rounding = down> : tensor<4xf32>
func.func @formats(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quant_qdq.round_to_format %x <fixed_point, bits = 16, fraction_bits = 8> : tensor<4xf32>
  %1 = quant_qdq.round_to_format %0 <fixed_point, bits = 8, fraction_bits = -2, rounding = stochastic, seed = 7> : tensor<4xf32>
  %2 = quant_qdq.round_to_format %1 <binary, marginal = 0.25> : tensor<4xf32>
  %3 = quant_qdq.round_to_format %2 <ternary, marginal = 0.5, threshold = 0.25> : tensor<4xf32>
  %4 = quant_qdq.round_to_format %3 <ternary> : tensor<4xf32>
  %5 = quant_qdq.round_to_format %4 <logarithmic> : tensor<4xf32>
  %6 = quant_qdq.round_to_format %5 <sparse, threshold = 0.125> : tensor<4xf32>
  %7 = quant_qdq.round_to_format %6 <half> : tensor<4xf32>
  %8 = quant_qdq.round_to_format %7 <fixed_point, bits = 4, fraction_bits = 0, rounding = down> : tensor<4xf32>
  return %8 : tensor<4xf32>
}

// The attribute stands alone too, and bf16 tensors take it.
// CHECK-LABEL: func.func @bf16
// CHECK: quant_qdq.round_to_format %arg0 <fixed_point, bits = 8, fraction_bits = 4, rounding = zero> : tensor<2x3xbf16>
// CHECK: format = #quant_qdq.number_format<logarithmic>
func.func @bf16(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %0 = quant_qdq.round_to_format %x <fixed_point, bits = 8, fraction_bits = 4, rounding = zero> : tensor<2x3xbf16>
  %1 = "test.op"() {format = #quant_qdq.number_format<logarithmic>} : () -> i32
  return %0 : tensor<2x3xbf16>
}
