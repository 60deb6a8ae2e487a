// RUN: qdq-opt %s --convert-quant-qdq-to-gpu="block-size=32 vectors=1" | FileCheck %s
// RUN: not qdq-opt %s --convert-quant-qdq-to-gpu="block-size=48" 2>&1 | FileCheck %s --check-prefix=BAD

// Channels last (axis 3, one element per slice) with small blocks: a block
// touches as many channels as it has elements, so staging them would cost
// as much as the data; each element reads its own channel's parameters
// from global memory instead.
// CHECK-LABEL: gpu.func @quantize_f32_i8_n4096_c32x1_qm128_127_rcp
// CHECK-NOT: workgroup
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 32, 1, 1>
// CHECK-NOT: gpu.barrier
// CHECK: arith.remui
// CHECK: memref.load %arg2
// CHECK: arith.fptosi {{.*}} vector<4xf32> to vector<4xi8>
// CHECK: vector.store {{.*}} {alignment = 4 : i64} : memref<4096xi8>, vector<4xi8>
func.func @channels_last(%x: tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xi8> {
  %q = quant_qdq.quantize %x <bits = 8, narrow_range = false, axis = 3> scale [0.010, 0.020, 0.030, 0.040, 0.050, 0.060, 0.070, 0.010, 0.020, 0.030, 0.040, 0.050, 0.060, 0.070, 0.010, 0.020, 0.030, 0.040, 0.050, 0.060, 0.070, 0.010, 0.020, 0.030, 0.040, 0.050, 0.060, 0.070, 0.010, 0.020, 0.030, 0.040] : tensor<1x8x16x32xf32> -> tensor<1x8x16x32xi8>
  return %q : tensor<1x8x16x32xi8>
}

// BAD: error: block-size must be a multiple of 32 in [32, 1024], got 48
