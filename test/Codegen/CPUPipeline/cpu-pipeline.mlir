// The bundled network goes all the way to the LLVM dialect, its result
// turned into an out-parameter; its convolutions' register tiles are FMAs
// in OpenMP work-sharing loops, each loop in an internal function of its
// own that the network's function calls.
// RUN: qdq-opt %qdq_src_root/examples/resnet_v1_block.mlir --qdq-cpu-pipeline | FileCheck %s
// CHECK-NOT: quant_qdq.
// CHECK-NOT: linalg.
// CHECK: llvm.func internal @[[LOOP:resnet_v1_block_parallel[_0-9]*]]({{.*}}) attributes {{{.*}}passthrough = ["noinline"]
// CHECK: omp.parallel
// CHECK:   omp.wsloop
// CHECK:     llvm.intr.fmuladd{{.*}} : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK: llvm.func @resnet_v1_block(%arg0: !llvm.ptr, {{.*}}, %arg11: !llvm.ptr,
// CHECK-NOT: omp.parallel
// CHECK: llvm.call @malloc
// CHECK: llvm.call @[[LOOP]](
// CHECK: llvm.call @free
// CHECK: llvm.return{{$}}

// With `buffer-pool`, buffers come from the functions qdq-run's pool
// provides, which keep them from one run to the next.
// RUN: qdq-opt %qdq_src_root/examples/resnet_v1_block.mlir --qdq-cpu-pipeline="buffer-pool" | FileCheck %s --check-prefix=POOL
// POOL-NOT: llvm.call @malloc
// POOL: llvm.call @_mlir_memref_to_llvm_alloc
// POOL-NOT: llvm.call @malloc
// POOL: llvm.call @_mlir_memref_to_llvm_free
// POOL-NOT: llvm.call @free

// `tile-rows` and `wide-columns` set the contractions' register tiles: 6
// x 16 by default (a tile and its operands fit AVX2's 16 registers);
// qdq-run and calibration ask for 8 rows, and 32 columns where there are
// 256 or more, on AVX-512 hosts. The panels follow the columns.
// RUN: qdq-opt %qdq_src_root/examples/resnet_v1_block.mlir --qdq-cpu-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: qdq-opt %qdq_src_root/examples/resnet_v1_block.mlir --qdq-cpu-pipeline="tile-rows=8 wide-columns=32" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX512
// AVX2: qdq-pack-contraction-panels{{{.*}} wide-columns=0
// AVX2: qdq-vectorize-contractions{{{.*}} rows=6 {{.*}}wide-columns=0
// AVX512: qdq-pack-contraction-panels{{{.*}} wide-columns=32
// AVX512: qdq-vectorize-contractions{{{.*}} rows=8 {{.*}}wide-columns=32

// `split-batch-bytes` is qdq-split-batch's cache-bytes, right after the
// lowering to linalg; 0 by default (the whole batch at once), where qdq-run
// and calibration ask for half the host's last-level cache.
// RUN: qdq-opt %qdq_src_root/examples/resnet_v1_block.mlir --qdq-cpu-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: qdq-opt %qdq_src_root/examples/resnet_v1_block.mlir --qdq-cpu-pipeline="split-batch-bytes=4096" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=GROUPS
// WHOLE: convert-quant-qdq-to-linalg
// WHOLE: canonicalize
// WHOLE: qdq-split-batch{cache-bytes=0 explain=false samples=0}
// WHOLE: qdq-elementwise-fusion
// GROUPS: qdq-split-batch{cache-bytes=4096 explain=false samples=0}

// `vector-width` sets the f32 lanes of element-wise loops and of depthwise
// convolutions' and poolings' channel tiles alike: 8 by default, 16 where
// qdq-run and calibration find AVX-512.
// RUN: qdq-opt %qdq_src_root/examples/resnet_v1_block.mlir --qdq-cpu-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=LANES8
// RUN: qdq-opt %qdq_src_root/examples/resnet_v1_block.mlir --qdq-cpu-pipeline="vector-width=16" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=LANES16
// LANES8: qdq-vectorize-channel-windows{{{.*}}width=8}
// LANES8: qdq-vectorize-elementwise{width=8}
// LANES16: qdq-vectorize-channel-windows{{{.*}}width=16}
// LANES16: qdq-vectorize-elementwise{width=16}
// A vector of one lane is refused, with the op's location and exit status
// 1, by the element-wise vectorizer (0 by the channel windows' already).
// RUN: not qdq-opt %qdq_src_root/examples/resnet_v1_block.mlir --qdq-cpu-pipeline="vector-width=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LANES1
// RUN: not qdq-opt %qdq_src_root/examples/resnet_v1_block.mlir --qdq-cpu-pipeline="vector-width=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LANES0
// LANES1: resnet_v1_block.mlir:{{[0-9]+}}:{{[0-9]+}}: error: qdq-vectorize-elementwise: width must be 2 or more, got 1
// LANES0: resnet_v1_block.mlir:{{[0-9]+}}:{{[0-9]+}}: error: qdq-vectorize-channel-windows: width, pixels and vectors must be 1 or more
