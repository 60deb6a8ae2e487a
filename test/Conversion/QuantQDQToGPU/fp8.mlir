// FP8 (e4m3fn) kernels give the CPU's bits: the division-free x / s keeps
// the sign of a zero quotient (its correction is -(y * s - x), whose zero is
// -0; -0.0 is E4M3FN's byte 0x80), and results that are NaN are written as
// the canonical quiet NaN, whether the rounding is f32 bit arithmetic (any
// GPU) or sm_89's cvt instructions.
// test/Execution/gpu/fake-quant.test compares the two on a device.
// RUN: qdq-opt %s --convert-quant-qdq-to-gpu --canonicalize | FileCheck %s --check-prefixes=CHECK,BITS
// RUN: qdq-opt %s --convert-quant-qdq-to-gpu="hardware-fp8" --canonicalize | FileCheck %s --check-prefixes=CHECK,CVT

// BITS-LABEL: gpu.func @fake_quant_f32_f32_n4096_e4m3fn_rcp(
// CVT-LABEL: gpu.func @fake_quant_f32_f32_n4096_e4m3fn_cvt_rcp(
// CHECK-DAG: %[[NAN:.*]] = arith.constant dense<0x7FC00000> : vector<4xf32>
// CHECK: %[[Y:.*]] = arith.minimumf
// CHECK: %[[NEGX:.*]] = arith.negf
// CHECK: %[[NEGRES:.*]] = math.fma %[[Y]], %{{.*}}, %[[NEGX]]
// CHECK: %[[RES:.*]] = arith.negf %[[NEGRES]]
// CHECK: math.fma %[[RES]], %{{.*}}, %[[Y]]
// CHECK-NOT: math.copysign
// BITS: math.roundeven
// CVT: nvvm.convert.f32x2.to.f8x2
// CVT: nvvm.convert.f8x2.to.f16x2
// CHECK: arith.cmpf uno
// CHECK: arith.select %{{.*}}, %[[NAN]],
func.func @fake_quant(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %y = quant_qdq.fake_quant %x <bits = 8, storage = e4m3fn> scale [0.0235] : tensor<4096xf32>
  return %y : tensor<4096xf32>
}

// BITS-LABEL: gpu.func @fake_quant_bf16_bf16_n8192_e4m3fn_rcp(
// BITS: %[[R:.*]] = arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// BITS: %[[ISNAN:.*]] = arith.cmpf uno, %[[R]], %[[R]] : vector<8xbf16>
// BITS: arith.select %[[ISNAN]], %{{.*}}, %[[R]] : vector<8xi1>, vector<8xbf16>
// sm_89's path rounds lane pairs (one cvt.rn.bf16x2.f32 each) and masks the
// NaN lanes of the pair to 0x7FC0, tested on the f32 values.
// CVT-LABEL: gpu.func @fake_quant_bf16_bf16_n8192_e4m3fn_cvt_rcp(
// CVT-DAG: %[[CANON:.*]] = arith.constant 2143322048 : i32
// CVT-DAG: %[[LO:.*]] = arith.constant 65535 : i32
// CVT-DAG: %[[HI:.*]] = arith.constant -65536 : i32
// CVT: nvvm.convert.f8x2.to.f16x2
// CVT: %[[D:.*]] = arith.mulf %{{.*}} : vector<8xf32>
// CVT-NEXT: %[[D0:.*]] = vector.extract %[[D]][0]
// CVT: %[[D1:.*]] = vector.extract %[[D]][1]
// CVT: %[[PAIR:.*]] = vector.from_elements %[[D0]], %[[D1]] : vector<2xf32>
// CVT: %[[R:.*]] = arith.truncf %[[PAIR]] : vector<2xf32> to vector<2xbf16>
// CVT: %[[WORD:.*]] = vector.bitcast %[[R]] : vector<2xbf16> to vector<1xi32>
// CVT: %[[PACKED:.*]] = vector.extract %[[WORD]][0]
// CVT-DAG: %[[NAN1:.*]] = arith.cmpf uno, %[[D1]], %[[D1]] : f32
// CVT-DAG: %[[M1:.*]] = arith.select %[[NAN1]], %[[HI]], %{{.*}} : i32
// CVT-DAG: %[[NAN0:.*]] = arith.cmpf uno, %[[D0]], %[[D0]] : f32
// CVT-DAG: %[[M0:.*]] = arith.select %[[NAN0]], %[[LO]], %{{.*}} : i32
// CVT: %[[MASK:.*]] = arith.ori %[[M0]], %[[M1]] : i32
// CVT: %[[KEEP:.*]] = arith.xori %[[MASK]], %{{.*}} : i32
// CVT: %[[KEPT:.*]] = arith.andi %[[PACKED]], %[[KEEP]] : i32
// CVT: %[[PUT:.*]] = arith.andi %[[MASK]], %[[CANON]] : i32
// CVT: arith.ori %[[KEPT]], %[[PUT]] : i32
// CVT-NOT: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
func.func @fake_quant_bf16(%x: tensor<8192xbf16>) -> tensor<8192xbf16> {
  %y = quant_qdq.fake_quant %x <bits = 8, storage = e4m3fn> scale [0.0235] : tensor<8192xbf16>
  return %y : tensor<8192xbf16>
}
