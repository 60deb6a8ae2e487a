// RUN: not qdq-opt %s 2>&1 | FileCheck %s
// RUN: sh -c 'qdq-opt %s > /dev/null 2>&1; test $? -eq 1'

// An invalid quantizer is reported where it is written, not at the op.

// CHECK: {{.*}}quantizer-error-location.mlir:[[# @LINE + 2]]:32: error: custom op 'quant_qdq.fake_quant' quantizer bit width must be in [2, 16], got 40
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = quant_qdq.fake_quant %x <bits = 40> : tensor<4xf32>
  return %y : tensor<4xf32>
}
