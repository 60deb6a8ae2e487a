// The kernels' structure with 4 vectors per thread; the default moves one
// (DEFAULT below), which keeps small tensors spread over every SM.
// RUN: qdq-opt %s --convert-quant-qdq-to-gpu="vectors=4" --canonicalize --cse -split-input-file | FileCheck %s
// RUN: qdq-opt %s --convert-quant-qdq-to-gpu -split-input-file | FileCheck %s --check-prefix=DEFAULT

// Per tensor, f32, a size that fills whole blocks: one kernel of 16-byte
// vectors, 4 per thread, all loaded before use, no bounds checks, and x / s
// from the reciprocal the host passes in (no division in the kernel).

// CHECK-LABEL: func.func private @qdq_launch_fake_quant_f32_f32_n262144_qm127_127_rcp
// CHECK-SAME: attributes {quant_qdq.gpu_launcher = @qdq_kernels::@fake_quant_f32_f32_n262144_qm127_127_rcp}
// CHECK-LABEL: func.func @per_tensor
// CHECK: %[[IN:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[IN]] {{\[}}[0, 1, 2, 3]]
// CHECK: call @qdq_launch_fake_quant_f32_f32_n262144_qm127_127_rcp(%[[FLAT]],
// CHECK: bufferization.to_tensor %{{.*}} restrict writable
// CHECK: gpu.module @qdq_kernels
// CHECK: gpu.func @fake_quant_f32_f32_n262144_qm127_127_rcp(%[[X:.*]]: memref<262144xf32> {llvm.noalias, llvm.readonly}, %[[Y:.*]]: memref<262144xf32> {llvm.noalias}
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 64, 1, 1>, quant_qdq.elements_per_thread = 16 : i64, quant_qdq.kernel_args = ["input", "output", "scale", "reciprocal", "zero_point"]}
// DEFAULT-LABEL: gpu.func @fake_quant_f32_f32_n262144_qm127_127_rcp
// DEFAULT-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 256, 1, 1>, quant_qdq.elements_per_thread = 4 : i64
// CHECK-NOT: scf.if
// CHECK-COUNT-4: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<262144xf32>, vector<4xf32>
// CHECK-NOT: arith.divf
// CHECK: math.fma
// CHECK-NOT: math.copysign
// CHECK: math.roundeven
// CHECK-COUNT-4: vector.store %{{.*}}, %[[Y]]
// CHECK-NOT: arith.divf
func.func @per_tensor(%x: tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32> {
  %y = quant_qdq.fake_quant %x <bits = 8> scale [0.05] : tensor<4x64x32x32xf32>
  return %y : tensor<4x64x32x32xf32>
}

// -----

// Two ops of one shape and quantizer share a kernel, whatever their scales.
// CHECK-LABEL: func.func @shared
// CHECK-COUNT-2: call @qdq_launch_fake_quant_f32_f32_n1024_qm127_127_rcp
// CHECK: gpu.module @qdq_kernels
// CHECK-COUNT-1: gpu.func
// CHECK-NOT: gpu.func
func.func @shared(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %a = quant_qdq.fake_quant %x <bits = 8> scale [0.05] : tensor<1024xf32>
  %b = quant_qdq.fake_quant %a <bits = 8> scale [0.5] : tensor<1024xf32>
  return %b : tensor<1024xf32>
}

// -----

// Per channel, bf16 (8 per vector), NCHW axis 1: a block's 8192 elements
// span at most 11 slices of 900, so the scales, reciprocals and zero points
// it needs are staged in shared memory once, before a barrier; the last,
// partial block checks bounds. The data is loaded first, so that the
// staging's loads and the barrier wait while it is in flight, and the
// three staged loads are issued before their stores.
// CHECK-LABEL: gpu.func @fake_quant_bf16_bf16_n230400_c64x900_qm127_127_rcp
// CHECK-SAME: workgroup(%[[S:.*]] : memref<11xf32, #gpu.address_space<workgroup>>, %[[R:.*]] : memref<11xf32, #gpu.address_space<workgroup>>, %[[Z:.*]] : memref<11xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_grid_size = array<i32: 29, 1, 1>
// CHECK: vector.load {{.*}} vector<8xbf16>
// CHECK: scf.for
// CHECK: memref.load
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.store %{{.*}}, %[[S]]
// CHECK-NEXT: memref.store %{{.*}}, %[[R]]
// CHECK-NEXT: memref.store %{{.*}}, %[[Z]]
// CHECK: gpu.barrier
// CHECK-NOT: vector.load {{.*}} vector<8xbf16>
// CHECK: memref.load %[[S]]
// CHECK: arith.extf {{.*}} vector<8xbf16> to vector<8xf32>
// CHECK: arith.truncf {{.*}} vector<8xf32> to vector<8xbf16>
func.func @per_channel(%x: tensor<4x64x30x30xbf16>) -> tensor<4x64x30x30xbf16> {
  %y = quant_qdq.fake_quant %x <bits = 8, axis = 1> scale [0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3] : tensor<4x64x30x30xbf16>
  return %y : tensor<4x64x30x30xbf16>
}

// -----

// A scale outside [2^-100, 2^100] keeps the division; the gradient kernel
// takes the upstream gradient as its second argument.
// CHECK-LABEL: gpu.func @fake_quant_grad_f32_f32_n64_qm127_127_div
// CHECK-SAME: quant_qdq.kernel_args = ["input", "grad", "output", "scale", "reciprocal", "zero_point"]
// CHECK: arith.divf
// CHECK: arith.cmpf oge
// CHECK: arith.cmpf ole
// CHECK: arith.select
func.func @grad_tiny_scale(%x: tensor<64xf32>, %dy: tensor<64xf32>) -> tensor<64xf32> {
  %dx = quant_qdq.fake_quant_grad %x, %dy <bits = 8> scale [1.0e-35] : tensor<64xf32>
  return %dx : tensor<64xf32>
}

// -----

// Dynamic shapes stay on the CPU path, with a remark.
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK-LABEL: func.func @dynamic
  // CHECK: quant_qdq.fake_quant
  %y = quant_qdq.fake_quant %x <bits = 8> scale [0.05] : tensor<?xf32>
  return %y : tensor<?xf32>
}
