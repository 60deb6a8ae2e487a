// --export-gpu-kernels describes blocked (int4) kernels: int4 storage (one
// value a byte), parameter tables of the scale shape, the quantizer's
// block_size; the GPU bench accepts them.
// RUN: qdq-translate --export-gpu-kernels --gpu-format=isa %s -o %t.json
// RUN: FileCheck %s < %t.json
// RUN: %python %qdq_src_root/bench/gpu/run_bench.py --dry-run %t.json 2>&1 | FileCheck %s --check-prefix=BENCH

// CHECK: "op": "dequantize",
// CHECK: "kernel": "dequantize_i4_f32_n512_c64x8_b32_qm7_7_rcp",
// CHECK: "role": "input",
// CHECK-NEXT: "dtype": "int4",
// CHECK: "role": "scale",
// CHECK-NEXT: "dtype": "float32",
// CHECK-NEXT: "shape": [
// CHECK-NEXT: 2,
// CHECK-NEXT: 8
// CHECK-NEXT: ],
// CHECK-NEXT: "values": [
// CHECK: "axis": 0,
// CHECK-NEXT: "block_size": 32,

// BENCH: kernel k_n: dequantize int4->float32 64x8 int4 blocks of 32 (axis 0)
// BENCH: dry run: the manifest is valid

func.func @k_n(%q: tensor<64x8xi4>) -> tensor<64x8xf32> {
  %w = quant_qdq.dequantize %q <bits = 4, axis = 0, block_size = 32> scale [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8] : tensor<64x8xi4> -> tensor<64x8xf32>
  return %w : tensor<64x8xf32>
}
