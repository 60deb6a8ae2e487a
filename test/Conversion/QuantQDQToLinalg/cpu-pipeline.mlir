// The bundled network goes all the way to the LLVM dialect, its result
// turned into an out-parameter.
// RUN: qdq-opt %qdq_src_root/examples/resnet_v1_block.mlir --qdq-cpu-pipeline | FileCheck %s
// CHECK-NOT: quant_qdq.
// CHECK-NOT: linalg.
// CHECK: llvm.func @resnet_v1_block(%arg0: !llvm.ptr, {{.*}}, %arg11: !llvm.ptr,
// CHECK: llvm.return{{$}}
