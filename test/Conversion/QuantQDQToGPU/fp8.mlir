// FP8 (e4m3fn) kernels give the CPU's bits: the division-free x / s keeps
// the sign of a zero quotient (copysign: -0.0 is E4M3FN's byte 0x80), and
// results that are NaN are written as the canonical quiet NaN, whether the
// rounding is f32 bit arithmetic (any GPU) or sm_89's cvt instructions.
// test/Execution/gpu/fake-quant.test compares the two on a device.
// RUN: qdq-opt %s --convert-quant-qdq-to-gpu --canonicalize | FileCheck %s --check-prefixes=CHECK,BITS
// RUN: qdq-opt %s --convert-quant-qdq-to-gpu="hardware-fp8" --canonicalize | FileCheck %s --check-prefixes=CHECK,CVT

// BITS-LABEL: gpu.func @fake_quant_f32_f32_n4096_e4m3fn_rcp(
// CVT-LABEL: gpu.func @fake_quant_f32_f32_n4096_e4m3fn_cvt_rcp(
// CHECK-DAG: %[[NAN:.*]] = arith.constant dense<0x7FC00000> : vector<4xf32>
// CHECK: math.fma
// CHECK: math.copysign
// BITS: math.roundeven
// CVT: nvvm.convert.f32x2.to.f8x2
// CVT: nvvm.convert.f8x2.to.f16x2
// CHECK: arith.cmpf uno
// CHECK: arith.select %{{.*}}, %[[NAN]],
func.func @fake_quant(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %y = quant_qdq.fake_quant %x <bits = 8, storage = e4m3fn> scale [0.0235] : tensor<4096xf32>
  return %y : tensor<4096xf32>
}
