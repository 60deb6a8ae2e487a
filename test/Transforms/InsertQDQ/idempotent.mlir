// Running insert-qdq twice changes nothing: operands that a dequantize
// already feeds are left alone, and so are the consumers of a pass-through
// layer (max pooling, flatten, reshape) whose input a dequantize feeds, where
// the first run moved their pair.
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq=resnet-v1 > %t.once
// RUN: qdq-opt %t.once --insert-qdq=resnet-v1 > %t.twice
// RUN: diff %t.once %t.twice
// The report's totals say so.
// RUN: qdq-opt %S/Inputs/block.mlir --insert-qdq=resnet-v1 --qdq-report=- \
// RUN:   -o /dev/null | FileCheck %s --check-prefix=ONCE
// RUN: qdq-opt %t.once --insert-qdq=resnet-v1 --qdq-report=- -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=TWICE
// ONCE: # 4 layers (0 by spec, 1 by case, 3 by default table): 4 with quantized inputs, 2 quantized weights (2 per channel); 5 Q/DQ pairs inserted, 0 uses already quantized
// TWICE: # 4 layers (0 by spec, 1 by case, 3 by default table): 4 with quantized inputs, 2 quantized weights (2 per channel); 0 Q/DQ pairs inserted, 6 uses already quantized
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
// RUN: qdq-opt %t.moved.once --split-input-file --insert-qdq \
// RUN:   --qdq-report=- -o /dev/null | FileCheck %s --check-prefix=MOVED
// MOVED-COUNT-4: ; 0 Q/DQ pairs inserted, {{[1-9][0-9]*}} uses already quantized
// MOVED-NOT: pairs inserted
