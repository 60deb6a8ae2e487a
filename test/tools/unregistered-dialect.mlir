// RUN: not qdq-opt %s 2>&1 | FileCheck %s
// RUN: sh -c 'qdq-opt %s > /dev/null 2>&1; test $? -eq 1'
// RUN: qdq-opt %s --allow-unregistered-dialect | FileCheck %s --check-prefix=ALLOWED

// CHECK: {{.*}}unregistered-dialect.mlir:[[# @LINE + 4]]:19: error: operation being parsed with an unregistered dialect
// ALLOWED: "onnx.LSTM"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// ALLOWED-NEXT: quant_qdq.activation relu
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "onnx.LSTM"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = quant_qdq.activation relu %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
