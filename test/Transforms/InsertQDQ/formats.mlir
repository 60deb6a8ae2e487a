// Formats: int4 weight-only in blocks along the reduction axis (K), int16
// activations, FP8, and the errors of conflicting or unknown options.
// RUN: qdq-opt %S/Inputs/mlp.mlir --insert-qdq="weight-format=int4 activation-format=none weight-block-size=128" | FileCheck %s --check-prefix=INT4
// RUN: qdq-opt %S/Inputs/mlp.mlir --insert-qdq="weight-format=int4 activation-format=none weight-block-size=128" --qdq-weight-scales --qdq-quantize-weights | FileCheck %s --check-prefix=STORED
// RUN: qdq-opt %S/Inputs/mlp.mlir --insert-qdq="activation-format=int16" | FileCheck %s --check-prefix=INT16
// RUN: qdq-opt %S/Inputs/mlp.mlir --insert-qdq="weight-format=int4" | FileCheck %s --check-prefix=PERCHANNEL
// RUN: qdq-opt %S/Inputs/mlp.mlir --qdq-quantize="weight-format=int4 activation-format=none weight-block-size=32 report=-" | FileCheck %s --check-prefix=REPORT
// RUN: qdq-opt %S/Inputs/mlp.mlir --insert-qdq="weight-format=fp8 activation-format=fp8" | FileCheck %s --check-prefix=FP8
// RUN: qdq-opt %S/Inputs/mlp.mlir --insert-qdq="spec=%S/Inputs/mixed-formats.json weight-format=int4 weight-block-size=16" | FileCheck %s --check-prefix=MIXED
// RUN: qdq-opt %S/Inputs/mlp.mlir --insert-qdq="spec=%S/Inputs/mixed-formats.json weight-format=int4 weight-block-size=16" --qdq-weight-scales --qdq-quantize-weights | qdq-translate --export-onnx -o %t.onnx
// RUN: not qdq-opt %S/Inputs/mlp.mlir --insert-qdq="weight-format=int4 weight-bits=6" 2>&1 | FileCheck %s --check-prefix=CONFLICT
// RUN: not qdq-opt %S/Inputs/mlp.mlir --insert-qdq="weight-format=fp4" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not qdq-opt %S/Inputs/mlp.mlir --insert-qdq="activation-format=int2" 2>&1 | FileCheck %s --check-prefix=UNKNOWN-ACT
// RUN: not qdq-opt %S/Inputs/mlp.mlir --insert-qdq="weight-block-size=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: qdq-opt %S/Inputs/mlp.mlir --insert-qdq="weight-format=int4 weight-scale=max" | FileCheck %s --check-prefix=SCALE-MAX
// RUN: qdq-opt %S/Inputs/mlp.mlir --insert-qdq="weight-scale=mse" | FileCheck %s --check-prefix=SCALE-MSE
// RUN: not qdq-opt %S/Inputs/mlp.mlir --insert-qdq="weight-scale=min" 2>&1 | FileCheck %s --check-prefix=SCALE-BAD

// int4 weights use the full range -8..7 (weight-scale=auto); max keeps
// TensorRT's -7..7 at every width, and mse asks every integer weight for
// the full range and its clipping of least rounding error.
// SCALE-MAX: quant_qdq.quantize %{{.*}} <bits = 4, axis = 0> : tensor<64x256xf32>
// SCALE-MSE: quant_qdq.quantize %{{.*}} <bits = 8, narrow_range = false, axis = 0, calibration = mse> : tensor<64x256xf32>
// SCALE-BAD: error: weight-scale must be auto, max or mse, got 'min'

// Weight-only: no activation pair. fc1's weight is [N, K] = [64, 256]:
// blocks along axis 1; fc2's is [K, N] = [64, 16]: along axis 0, where 64
// is one shorter block of 128.
// INT4-NOT: quant_qdq.quantize %arg0
// INT4: quant_qdq.quantize %{{.*}} <bits = 4, narrow_range = false, axis = 1, block_size = 128> : tensor<64x256xf32> -> tensor<64x256xi4>
// INT4: quant_qdq.quantize %{{.*}} <bits = 4, narrow_range = false, axis = 0, block_size = 128> : tensor<64x16xf32> -> tensor<64x16xi4>

// Stored: one scale per row and block, 0.25 / 7 and 0.5 / 7, the weight
// as int4 constants.
// STORED: arith.constant dense_resource<{{.*}}> : tensor<64x256xi4>
// STORED: quant_qdq.dequantize %{{.*}} <bits = 4, narrow_range = false, axis = 1, block_size = 128> scale [3.571429e-02, 3.571429e-02,
// STORED: arith.constant dense_resource<{{.*}}> : tensor<64x16xi4>
// STORED: quant_qdq.dequantize %{{.*}} <bits = 4, narrow_range = false, axis = 0, block_size = 128> scale [7.142857e-02,

// INT16: quant_qdq.quantize %arg0 <bits = 16> : tensor<2x256xf32> -> tensor<2x256xi16>
// INT16: quant_qdq.quantize %{{.*}} <bits = 8, axis = 0> : tensor<64x256xf32>

// Without a block size, int4 weights are per output channel.
// PERCHANNEL: quant_qdq.quantize %arg0 <bits = 8>
// PERCHANNEL: quant_qdq.quantize %{{.*}} <bits = 4, narrow_range = false, axis = 0> : tensor<64x256xf32>

// FP8 E4M3FN activations per tensor and weights per channel.
// FP8: quant_qdq.quantize %arg0 <bits = 8, storage = e4m3fn> : tensor<2x256xf32> -> tensor<2x256xf8E4M3FN>
// FP8: quant_qdq.quantize %{{.*}} <bits = 8, axis = 0, storage = e4m3fn> : tensor<64x256xf32> -> tensor<64x256xf8E4M3FN>

// Formats per layer from the spec: fc1 reads int16 and keeps int4 weights
// in blocks of 32 (the entry's, not the option's 16); fc2 is FP8 on both
// sides with per-channel weights (block_size 0 undoes the option).
// MIXED: quant_qdq.quantize %arg0 <bits = 16> : tensor<2x256xf32> -> tensor<2x256xi16>
// MIXED: quant_qdq.quantize %{{.*}} <bits = 4, narrow_range = false, axis = 1, block_size = 32> : tensor<64x256xf32> -> tensor<64x256xi4>
// MIXED: quant_qdq.quantize %{{.*}} <bits = 8, axis = 1, storage = e4m3fn> : tensor<64x16xf32> -> tensor<64x16xf8E4M3FN>
// MIXED: quant_qdq.quantize %{{.*}} <bits = 8, storage = e4m3fn> : tensor<2x64xf32> -> tensor<2x64xf8E4M3FN>

// REPORT: fc1 {{.*}} default table; weight-only
// REPORT: fc2 {{.*}} default table; weight-only
// REPORT: 2 quantized weights (0 per channel, 2 in blocks)

// CONFLICT: error: weight-format=int4 stores 4 bits but weight-bits=6: give one
// UNKNOWN: error: unknown weight-format 'fp4': expected one of int8, int4, fp8
// UNKNOWN-ACT: error: unknown activation-format 'int2': expected one of int8, int16, fp8, none
// NEGATIVE: error: weight-block-size must be 0 (per channel) or positive, got -1
