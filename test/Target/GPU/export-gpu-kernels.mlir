// qdq-translate --export-gpu-kernels: each Q/DQ op's kernel, compiled, in
// the manifest bench/gpu/run_bench.py launches (PTX here: no GPU needed).
// RUN: qdq-translate --export-gpu-kernels --gpu-format=isa %s -o %t.json
// RUN: FileCheck %s < %t.json
// RUN: qdq-translate --export-gpu-kernels --gpu-format=isa --gpu-vectors=4 --gpu-block-size=128 %s | FileCheck %s --check-prefix=GEOMETRY
// RUN: %python %qdq_src_root/bench/gpu/run_bench.py --dry-run %t.json | FileCheck %s --check-prefix=DRY
// The benchmark's whole kernel set, as cubins (ptxas from the CUDA
// toolkit), validated against the set gen_mlir.py writes.
// RUN: env PYTHON=%python %qdq_src_root/bench/gpu/make_kernels.sh %qdq_obj_root -o %t.bench.json | FileCheck %s --check-prefix=BENCH
// Mistakes: one error, exit status 1.
// RUN: not qdq-translate --export-gpu-kernels --gpu-format=elf %s 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not qdq-translate --export-gpu-kernels --gpu-format=isa --gpu-block-size=33 %s -o %t.bad.json 2>&1 | FileCheck %s --check-prefix=BLOCKSIZE
// RUN: not qdq-translate --export-gpu-kernels --gpu-format=isa --gpu-vectors=0 %s -o %t.bad.json 2>&1 | FileCheck %s --check-prefix=VECTORS
// RUN: not test -e %t.bad.json
// RUN: echo 'func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> { return %x : tensor<4xf32> }' | not qdq-translate --export-gpu-kernels 2>&1 | FileCheck %s --check-prefix=NONE

// CHECK: "chip": "sm_90",
// CHECK: "format": "isa",
// CHECK: "objects": [
// CHECK: "module": "qdq_kernels",
// CHECK: "kernels": [

// A per-channel fake_quant: input, output, then scale, reciprocal and zero
// point per channel.
// CHECK: "function": "fq_f32_pc_16KiB",
// CHECK-NEXT: "op": "fake_quant",
// CHECK-NEXT: "module": "qdq_kernels",
// CHECK-NEXT: "kernel": "fake_quant_f32_f32_n4096_c4x64_qm127_127_rcp",
// CHECK-NEXT: "grid": [
// CHECK: "block": [
// CHECK-NEXT: 256,
// CHECK: "shared_bytes": 0,
// CHECK-NEXT: "elements_per_thread": 4,
// The launch geometry is an option: 4 vectors of 4 f32 per thread, 128
// threads per block, 2 blocks for the 4096 elements.
// GEOMETRY: "function": "fq_f32_pc_16KiB",
// GEOMETRY: "grid": [
// GEOMETRY-NEXT: 2,
// GEOMETRY: "block": [
// GEOMETRY-NEXT: 128,
// GEOMETRY: "elements_per_thread": 16,
// CHECK-NEXT: "args": [
// CHECK: "role": "input",
// CHECK-NEXT: "dtype": "float32",
// CHECK-NEXT: "shape": [
// CHECK-NEXT: 16,
// CHECK-NEXT: 4,
// CHECK-NEXT: 8,
// CHECK-NEXT: 8
// CHECK: "role": "scale",
// CHECK-NEXT: "dtype": "float32",
// CHECK-NEXT: "shape": [
// CHECK-NEXT: 4
// CHECK: "values": [
// CHECK-NEXT: 0.5,
// CHECK-NEXT: 0.25,
// CHECK-NEXT: 1,
// CHECK-NEXT: 2
// CHECK: "role": "reciprocal",
// CHECK: "values": [
// CHECK-NEXT: 2,
// CHECK-NEXT: 4,
// CHECK-NEXT: 1,
// CHECK-NEXT: 0.5
// CHECK: "role": "zero_point",
// CHECK: "quantizer": {
// CHECK-NEXT: "bits": 8,
// CHECK-NEXT: "signed": true,
// CHECK-NEXT: "narrow_range": true,
// CHECK-NEXT: "axis": 1,
// CHECK-NEXT: "qmin": -127,
// CHECK-NEXT: "qmax": 127

// A quantize to uint8 and the dequantize back.
// CHECK: "function": "qdq_u8",
// CHECK-NEXT: "op": "quantize",
// CHECK: "role": "output",
// CHECK-NEXT: "dtype": "uint8",
// CHECK: "signed": false,
// CHECK-NEXT: "narrow_range": false,
// CHECK-NEXT: "axis": null,
// CHECK-NEXT: "qmin": 0,
// CHECK-NEXT: "qmax": 255
// CHECK: "function": "qdq_u8",
// CHECK-NEXT: "op": "dequantize",
// CHECK: "role": "input",
// CHECK-NEXT: "dtype": "uint8",

// fake_quant_grad takes the gradient after the input.
// CHECK: "function": "fq_grad",
// CHECK-NEXT: "op": "fake_quant_grad",
// CHECK: "role": "input",
// CHECK: "role": "grad",
// CHECK: "role": "output",

// An op of dynamic shape stays on the CPU: no kernel, no entry.
// CHECK-NOT: "function": "dynamic"

// DRY: dry run: the manifest is valid; nothing was run
// BENCH: dry run: the manifest is valid; nothing was run
// FORMAT: error: --gpu-format must be isa, bin or fatbin, not 'elf'
// NONE: error: no quantize, dequantize, fake_quant, fake_quant_grad or round_to_format op of static shape to export

func.func @fq_f32_pc_16KiB(%x: tensor<16x4x8x8xf32>) -> tensor<16x4x8x8xf32> {
  %y = quant_qdq.fake_quant %x <bits = 8, axis = 1> scale [0.5, 0.25, 1.0, 2.0] : tensor<16x4x8x8xf32>
  return %y : tensor<16x4x8x8xf32>
}

func.func @qdq_u8(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %q = quant_qdq.quantize %x <bits = 8, is_signed = false, narrow_range = false, symmetric = false> scale [0.1] zero_point [128] : tensor<1024xf32> -> tensor<1024xi8>
  %d = quant_qdq.dequantize %q <bits = 8, is_signed = false, narrow_range = false, symmetric = false> scale [0.1] zero_point [128] : tensor<1024xi8> -> tensor<1024xf32>
  return %d : tensor<1024xf32>
}

func.func @fq_grad(%x: tensor<1024xf32>, %g: tensor<1024xf32>) -> tensor<1024xf32> {
  %y = quant_qdq.fake_quant_grad %x, %g <bits = 8> scale [0.5] : tensor<1024xf32>
  return %y : tensor<1024xf32>
}

func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = quant_qdq.fake_quant %x <bits = 8> scale [0.5] : tensor<?xf32>
  return %y : tensor<?xf32>
}

// A launch geometry the kernels cannot take is an error, and no manifest
// is written.
// BLOCKSIZE: error: block-size must be a multiple of 32 in [32, 1024], got 33
// VECTORS: error: vectors must be in [1, 16], got 0
