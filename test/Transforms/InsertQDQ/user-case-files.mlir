// A user case read at run time, as PDLL (compiled by mlir-pdll on the way)
// or as PDL: the seed toolkit's MaxPool case, from examples/cases.
// RUN: qdq-opt %s --insert-qdq=%qdq_src_root/examples/cases/maxpool_case.pdll --qdq-report=- 2>&1 | FileCheck %s
// RUN: mlir-pdll %qdq_src_root/examples/cases/maxpool_case.pdll -x=mlir -I %qdq_src_root/include -I %mlir_include -o %t.mlir
// RUN: qdq-opt %s --insert-qdq=%t.mlir --qdq-report=- 2>&1 | FileCheck %s
// A file case composes with library cases:
// RUN: qdq-opt %s --insert-qdq=resnet-v1,%t.mlir --qdq-report=- 2>&1 | FileCheck %s --check-prefix=BOTH

func.func @pool(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %a = quant_qdq.activation relu "relu" %x : tensor<1x4x8x8xf32>
  %p = quant_qdq.max_pool2d "pool" %a {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %s = quant_qdq.add "add" %p, %p : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %s : tensor<1x4x4x4xf32>
}

// CHECK: pool MaxPooling2D [0] no case {{maxpool_case.pdll|.*tmp.mlir}}
// CHECK: add Add [] no default table
// CHECK: %[[A:.*]] = quant_qdq.activation relu "relu"
// CHECK-NEXT: %[[Q:.*]] = quant_qdq.quantize %[[A]]
// CHECK-NEXT: %[[DQ:.*]] = quant_qdq.dequantize %[[Q]]
// CHECK-NEXT: quant_qdq.max_pool2d "pool" %[[DQ]]

// BOTH: pool MaxPooling2D [0] no case {{.*}}.mlir
// BOTH: add Add [0,1] no case residual
