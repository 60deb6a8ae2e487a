// round_to_format becomes GPU kernels of the Q/DQ kernels' design (16-byte
// vectors, U per thread), with NumberFormatArithmetic.h's arithmetic, in
// PTX that ptxas accepts for sm_80 and sm_90 without spills. Ternary's own
// threshold is a reduction on the host, passed as a third argument.
//
// RUN: qdq-opt %s --convert-quant-qdq-to-gpu | FileCheck %s --check-prefix=KERNELS
// RUN: qdq-opt %s --qdq-gpu-pipeline="chip=sm_90 features=+ptx80 format=isa" -o %t.sm90.mlir
// RUN: %python %S/Inputs/gpu_object.py %t.sm90.mlir %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 -v %t.sm90.ptx -o %t.sm90.cubin 2>&1 | %python %S/Inputs/ptxas_spills.py %t.sm90.ptx | FileCheck %s --check-prefix=PTXAS
// RUN: qdq-opt %s --qdq-gpu-pipeline="chip=sm_80 features=+ptx80 format=isa" -o %t.sm80.mlir
// RUN: %python %S/Inputs/gpu_object.py %t.sm80.mlir %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 -v %t.sm80.ptx -o %t.sm80.cubin 2>&1 | %python %S/Inputs/ptxas_spills.py %t.sm80.ptx | FileCheck %s --check-prefix=PTXAS

// KERNELS-LABEL: func.func @formats
// KERNELS: call @qdq_launch_round_to_format_f32_f32_n65536_nearest_8_4(
// KERNELS: call @qdq_launch_round_to_format_f32_f32_n65536_stochastic_8_4_7(
// KERNELS: call @qdq_launch_round_to_format_f32_f32_n65536_binary_0p5(
// KERNELS: linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]
// KERNELS: %[[TH:.*]] = tensor.from_elements %{{.*}} : tensor<1xf32>
// KERNELS: %[[B:.*]] = bufferization.to_buffer %[[TH]]
// KERNELS: call @qdq_launch_round_to_format_f32_f32_n65536_ternary_1({{.*}}, {{.*}}, %[[B]])
// KERNELS: call @qdq_launch_round_to_format_f32_f32_n65536_logarithmic(
// KERNELS: call @qdq_launch_round_to_format_bf16_bf16_n4096_sparse_0p25(
// KERNELS: call @qdq_launch_round_to_format_f32_f32_n65536_fp16(
// KERNELS: gpu.func @round_to_format_f32_f32_n65536_ternary_1({{.*}}: memref<65536xf32> {{.*}}, {{.*}}: memref<65536xf32> {{.*}}, {{.*}}: memref<1xf32> {{.*}}) {{.*}}quant_qdq.kernel_args = ["input", "output", "threshold"]

// PTX: .target sm_90
// PTX: .visible .entry round_to_format_f32_f32_n65536_nearest_8_4(
// PTX: ld.global.nc.v4
// PTX: st.global.v4
// PTX: .visible .entry round_to_format_f32_f32_n65536_stochastic_8_4_7(
// PTX: mul.lo.s64
// PTX: .visible .entry round_to_format_f32_f32_n65536_ternary_1(
// PTX: .visible .entry round_to_format_f32_f32_n65536_fp16(
// PTX: cvt.rn.f16.f32

// Every kernel, each checked by name (Inputs/ptxas_spills.py).
// PTXAS: 7 kernels, none spills

func.func @formats(%x: tensor<64x1024xf32>, %h: tensor<4096xbf16>) -> (tensor<64x1024xf32>, tensor<4096xbf16>) {
  %0 = quant_qdq.round_to_format %x <fixed_point, bits = 8, fraction_bits = 4> : tensor<64x1024xf32>
  %1 = quant_qdq.round_to_format %0 <fixed_point, bits = 8, fraction_bits = 4, rounding = stochastic, seed = 7> : tensor<64x1024xf32>
  %2 = quant_qdq.round_to_format %1 <binary, marginal = 0.5> : tensor<64x1024xf32>
  %3 = quant_qdq.round_to_format %2 <ternary> : tensor<64x1024xf32>
  %4 = quant_qdq.round_to_format %3 <logarithmic> : tensor<64x1024xf32>
  %5 = quant_qdq.round_to_format %h <sparse, threshold = 0.25> : tensor<4096xbf16>
  %6 = quant_qdq.round_to_format %4 <half> : tensor<64x1024xf32>
  return %6, %5 : tensor<64x1024xf32>, tensor<4096xbf16>
}
