// RUN: not qdq-opt %s 2>&1 | FileCheck %s
// RUN: sh -c 'qdq-opt %s > /dev/null 2>&1; test $? -eq 1'

// A file cut in the middle of an op: the error is at the end of the file,
// inside the unterminated attribute dictionary.

// CHECK: {{.*}}truncated.mlir:12:79: error: expected '}' in attribute dictionary
// CHECK-NOT: Stack dump
// CHECK-NOT: PLEASE submit a bug report

func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = quant_qdq.conv2d "conv1" %x, %w {pads = array<i64: 0, 0, 0, 0>, strides
