// RUN: not qdq-opt %s 2>&1 | FileCheck %s
// RUN: sh -c 'qdq-opt %s > /dev/null 2>&1; test $? -eq 1'

// An op the quant_qdq dialect does not define.

// CHECK: {{.*}}unknown-op.mlir:10:8: error: custom op 'quant_qdq.frobnicate' is unknown
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // A layer that does not exist: quant_qdq.generic is the way to carry it.
  %0 = quant_qdq.activation relu %x : tensor<4xf32>
  %1 = quant_qdq.frobnicate %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
