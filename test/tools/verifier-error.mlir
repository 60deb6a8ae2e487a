// RUN: not qdq-opt %s 2>&1 | FileCheck %s
// RUN: sh -c 'qdq-opt %s > /dev/null 2>&1; test $? -eq 1'
// RUN: not qdq-opt %s 2>/dev/null | count 0

// A well-formed file that fails verification: the message names the file
// and the op's line and column, and nothing is printed on stdout.

func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %0 = quant_qdq.activation relu %x : tensor<1x3x8x8xf32>
  // CHECK: {{.*}}verifier-error.mlir:[[# @LINE + 2]]:8: error: 'quant_qdq.conv2d' op inferred type(s) 'tensor<1x4x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8x8xf32>'
  // CHECK: {{.*}}verifier-error.mlir:[[# @LINE + 1]]:8: error: 'quant_qdq.conv2d' op failed to infer returned types
  %1 = quant_qdq.conv2d %0, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %1 : tensor<1x4x8x8xf32>
}
