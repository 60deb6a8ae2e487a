// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Blocked quantizers: one scale per block of `block_size` elements along
// the axis, for each index of the other dimensions. A [8, 3] weight in
// blocks of 4 along axis 0 has [2, 3] scales, row-major; a size that the
// block does not divide ends in a shorter block ([5, 3] also has [2, 3]).

// CHECK-LABEL: func.func @int4_blocks
// CHECK-NEXT: %0 = quant_qdq.quantize %arg0 <bits = 4, axis = 0, block_size = 4> scale [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00] : tensor<8x3xf32> -> tensor<8x3xi4>
// CHECK-NEXT: %1 = quant_qdq.dequantize %0 <bits = 4, axis = 0, block_size = 4> scale [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00] : tensor<8x3xi4> -> tensor<8x3xf32>
func.func @int4_blocks(%w: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %q = quant_qdq.quantize %w <bits = 4, axis = 0, block_size = 4> scale [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] : tensor<8x3xf32> -> tensor<8x3xi4>
  %d = quant_qdq.dequantize %q <bits = 4, axis = 0, block_size = 4> scale [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] : tensor<8x3xi4> -> tensor<8x3xf32>
  return %d : tensor<8x3xf32>
}

// CHECK-LABEL: func.func @partial_block
// CHECK: <bits = 4, axis = 0, block_size = 4>
func.func @partial_block(%w: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %f = quant_qdq.fake_quant %w <bits = 4, axis = 0, block_size = 4> scale [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] : tensor<5x3xf32>
  return %f : tensor<5x3xf32>
}

// Uncalibrated, and of dynamic size: the count is checked when known.
// CHECK-LABEL: func.func @dynamic
// CHECK: <bits = 4, axis = 1, block_size = 32>
func.func @dynamic(%w: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %f = quant_qdq.fake_quant %w <bits = 4, axis = 1, block_size = 32> : tensor<?x64xf32>
  return %f : tensor<?x64xf32>
}
