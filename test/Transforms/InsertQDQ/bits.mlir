// Default bit widths and per-entry quantizers.
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq="activation-bits=4 weight-bits=6" | FileCheck %s
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%S/Inputs/quantizers.json | FileCheck %s --check-prefix=SPEC
// RUN: not qdq-opt %S/Inputs/block.mlir --insert-qdq="activation-bits=1" 2>&1 | FileCheck %s --check-prefix=BAD
// The same spec with TFMOT's field names (num_bits, per_axis).
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq --qdq-spec=%S/Inputs/quantizers-tfmot.json | FileCheck %s --check-prefix=SPEC

// CHECK: quant_qdq.quantize %arg0 <bits = 4> : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xi4>
// CHECK: quant_qdq.quantize %{{.*}} <bits = 6, axis = 0> : tensor<4x4x3x3xf32> -> tensor<4x4x3x3xi6>

// block1_conv: 4-bit asymmetric unsigned input, per-tensor weight.
// SPEC: quant_qdq.quantize %arg0 <bits = 4, is_signed = false, narrow_range = false, symmetric = false> : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xi4>
// SPEC: quant_qdq.quantize %{{.*}} <bits = 8> : tensor<4x4x3x3xf32>

// BAD: error: quantizer bit width must be in [2, 16], got 1
