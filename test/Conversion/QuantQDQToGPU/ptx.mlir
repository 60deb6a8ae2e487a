// qdq-gpu-pipeline end to end: the kernels become PTX that ptxas accepts for
// sm_80 and sm_90 (without spills), with 128-bit loads through the read-only
// cache and 128-bit stores, correctly rounded f32 arithmetic (mul.rn, fma.rn)
// and no division; the host code calls the mgpu* runtime ABI.
//
// RUN: qdq-opt %s --qdq-gpu-pipeline="chip=sm_90 features=+ptx80 format=isa" -o %t.sm90.mlir
// RUN: %python %S/Inputs/gpu_object.py %t.sm90.mlir %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 -v %t.sm90.ptx -o %t.sm90.cubin 2>&1 | %python %S/Inputs/ptxas_spills.py %t.sm90.ptx | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=HOST < %t.sm90.mlir
//
// RUN: qdq-opt %s --qdq-gpu-pipeline="chip=sm_80 features=+ptx80 format=isa" -o %t.sm80.mlir
// RUN: %python %S/Inputs/gpu_object.py %t.sm80.mlir %t.sm80.ptx
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 -v %t.sm80.ptx -o %t.sm80.cubin 2>&1 | %python %S/Inputs/ptxas_spills.py %t.sm80.ptx | FileCheck %s --check-prefix=PTXAS
//
// format=bin runs ptxas itself and embeds the cubin (an ELF file).
// RUN: qdq-opt %s --qdq-gpu-pipeline="chip=sm_90 format=bin" -o %t.bin.mlir
// RUN: %python %S/Inputs/gpu_object.py %t.bin.mlir %t.cubin
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); sys.exit(d[:4] != b'\x7fELF')" %t.cubin

// PTX: .target sm_90
// PTX: .visible .entry fake_quant_f32_f32_n262144_qm127_127_rcp(
// PTX: ld.global.nc.v4
// PTX-NOT: div.
// PTX: fma.rn.f32
// PTX: cvt.rni.f32.f32
// PTX: st.global.v4
// PTX: .visible .entry fake_quant_grad_bf16_bf16_n4096_qm127_127_rcp(
// PTX: ld.global.nc.v4
// PTX: st.global.v4
// PTX: .visible .entry quantize_f32_i8_n65536_c64x1024_qm127_127_rcp(
// PTX: ld.shared
// PTX-NOT: div.
// PTX: .visible .entry dequantize_i8_f32_n65536_c64x1024_qm127_127_rcp(
// FP8 on sm_90: sm_89's conversions, two values each, 4 elements a vector
// (16 bytes of f32, 4 of e4m3fn).
// PTX: .visible .entry quantize_f32_f8E4M3FN_n65536_e4m3fn_cvt_rcp(
// PTX: ld.global.nc.v4
// PTX-NOT: cvt.rni
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX: st.global.v2.b16
// PTX: .visible .entry dequantize_f8E4M3FN_f32_n65536_e4m3fn_cvt_rcp(
// PTX: ld.global.nc.b32
// PTX: cvt.rn.f16x2.e4m3x2
// PTX: st.global.v4

// Every kernel, each checked by name (Inputs/ptxas_spills.py).
// PTXAS: 6 kernels, none spills

// SM80: .target sm_80
// sm_80 has no FP8 conversions: rounded and encoded on the f32 bits.
// SM80: .visible .entry quantize_f32_f8E4M3FN_n65536_e4m3fn_rcp(
// SM80-NOT: e4m3x2
// SM80: cvt.rni.f32.f32
// SM80: st.global.b32

// HOST-DAG: llvm.call @mgpuStreamCreate()
// HOST-DAG: llvm.call @mgpuMemAlloc
// HOST-DAG: llvm.call @mgpuMemcpy
// HOST-DAG: gpu.launch_func <%{{.*}} : !llvm.ptr> @qdq_kernels::@fake_quant_f32_f32_n262144_qm127_127_rcp blocks in
// HOST-DAG: llvm.call @mgpuMemFree
// HOST-DAG: llvm.call @mgpuStreamSynchronize
// HOST-DAG: gpu.binary @qdq_kernels

func.func @fake_quant(%x: tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32> {
  %y = quant_qdq.fake_quant %x <bits = 8> scale [0.05] : tensor<4x64x32x32xf32>
  return %y : tensor<4x64x32x32xf32>
}

func.func @grad(%x: tensor<4096xbf16>, %dy: tensor<4096xbf16>) -> tensor<4096xbf16> {
  %dx = quant_qdq.fake_quant_grad %x, %dy <bits = 8> scale [0.05] : tensor<4096xbf16>
  return %dx : tensor<4096xbf16>
}

func.func @qdq(%w: tensor<64x16x8x8xf32>) -> tensor<64x16x8x8xf32> {
  %q = quant_qdq.quantize %w <bits = 8, axis = 0> scale [0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04] : tensor<64x16x8x8xf32> -> tensor<64x16x8x8xi8>
  %d = quant_qdq.dequantize %q <bits = 8, axis = 0> scale [0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04] : tensor<64x16x8x8xi8> -> tensor<64x16x8x8xf32>
  return %d : tensor<64x16x8x8xf32>
}

func.func @fp8(%x: tensor<65536xf32>) -> tensor<65536xf32> {
  %q = quant_qdq.quantize %x <bits = 8, storage = e4m3fn> scale [0.01] : tensor<65536xf32> -> tensor<65536xf8E4M3FN>
  %d = quant_qdq.dequantize %q <bits = 8, storage = e4m3fn> scale [0.01] : tensor<65536xf8E4M3FN> -> tensor<65536xf32>
  return %d : tensor<65536xf32>
}
