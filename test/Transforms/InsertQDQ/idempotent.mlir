// Running insert-qdq twice changes nothing: operands that a dequantize
// already feeds are left alone, and so are the consumers of a pass-through
// layer (max pooling, flatten, reshape) whose input a dequantize feeds, where
// the first run moved their pair.
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq=resnet-v1 > %t.once
// RUN: qdq-opt %t.once --insert-qdq=resnet-v1 > %t.twice
// RUN: diff %t.once %t.twice
// RUN: grep -c quant_qdq.quantize %t.once | FileCheck %s
// Inputs and weights of both convolutions (the second convolution's input
// is the first one's output, shared with the Add's skip input), and the
// pool input.
// CHECK: 5

// RUN: qdq-opt %S/pass-through.mlir --split-input-file --insert-qdq \
// RUN:   > %t.moved.once
// RUN: qdq-opt %t.moved.once --split-input-file --insert-qdq \
// RUN:   > %t.moved.twice
// RUN: diff %t.moved.once %t.moved.twice
