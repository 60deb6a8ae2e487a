// RUN: not qdq-opt %s 2>&1 | FileCheck %s
// RUN: sh -c 'qdq-opt %s > /dev/null 2>&1; test $? -eq 1'

// An unknown op of the quant_qdq dialect in the generic form.

// CHECK: {{.*}}unknown-op-generic.mlir:8:8: error: unregistered operation 'quant_qdq.lstm' found in dialect ('quant_qdq') that does not allow unknown operations
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "quant_qdq.lstm"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
