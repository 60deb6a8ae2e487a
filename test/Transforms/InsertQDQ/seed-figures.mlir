// The three placements of the toolkit's documentation (seed 001) on a
// ResNet-v1 residual block: the default table leaves the Add alone; a spec
// naming the class Add quantizes both of its inputs; the resnet-v1 case
// quantizes the skip branch only, sharing the pair the next convolution puts
// on the block input.
// RUN: qdq-opt %s --insert-qdq | FileCheck %s --check-prefix=DEFAULT
// RUN: qdq-opt %s --insert-qdq | grep -c quant_qdq.quantize | FileCheck %s --check-prefix=DEFAULT-COUNT
// RUN: qdq-opt %s --insert-qdq --qdq-spec=%S/Inputs/add-class.json | FileCheck %s --check-prefix=SPEC
// RUN: qdq-opt %s --insert-qdq=resnet-v1 | FileCheck %s --check-prefix=CASE

func.func @block(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w1 = arith.constant dense<0.1> : tensor<8x8x3x3xf32>
  %w2 = arith.constant dense<0.1> : tensor<8x8x3x3xf32>
  %relu = quant_qdq.activation relu "block_in" %x : tensor<1x8x8x8xf32>
  %c1 = quant_qdq.conv2d "conv1" %relu, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %r1 = quant_qdq.activation relu "relu1" %c1 : tensor<1x8x8x8xf32>
  %c2 = quant_qdq.conv2d "conv2" %r1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %sum = quant_qdq.add "add" %c2, %relu : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %sum : tensor<1x8x8x8xf32>
}

// DEFAULT-LABEL: func.func @block
// DEFAULT: %[[RELU:.*]] = quant_qdq.activation relu "block_in"
// DEFAULT-NEXT: %[[Q:.*]] = quant_qdq.quantize %[[RELU]] <bits = 8>
// DEFAULT-NEXT: %[[DQ:.*]] = quant_qdq.dequantize %[[Q]] <bits = 8>
// DEFAULT-NEXT: quant_qdq.conv2d "conv1" %[[DQ]]
// DEFAULT: %[[C2:.*]] = quant_qdq.conv2d "conv2"
// DEFAULT-NEXT: quant_qdq.add "add" %[[C2]], %[[RELU]] :
// Inputs and weights of both convolutions, nothing else.
// DEFAULT-COUNT: 4

// SPEC-LABEL: func.func @block
// SPEC: %[[RELU:.*]] = quant_qdq.activation relu "block_in"
// SPEC-NEXT: %[[Q:.*]] = quant_qdq.quantize %[[RELU]]
// SPEC-NEXT: %[[DQ:.*]] = quant_qdq.dequantize %[[Q]]
// SPEC: %[[C2:.*]] = quant_qdq.conv2d "conv2"
// SPEC-NEXT: %[[QC2:.*]] = quant_qdq.quantize %[[C2]]
// SPEC-NEXT: %[[DQC2:.*]] = quant_qdq.dequantize %[[QC2]]
// SPEC-NEXT: quant_qdq.add "add" %[[DQC2]], %[[DQ]] :

// CASE-LABEL: func.func @block
// CASE: %[[RELU:.*]] = quant_qdq.activation relu "block_in"
// CASE-NEXT: %[[Q:.*]] = quant_qdq.quantize %[[RELU]] <bits = 8>
// CASE-NEXT: %[[DQ:.*]] = quant_qdq.dequantize %[[Q]] <bits = 8>
// CASE-NEXT: quant_qdq.conv2d "conv1" %[[DQ]]
// CASE: %[[C2:.*]] = quant_qdq.conv2d "conv2"
// CASE-NEXT: quant_qdq.add "add" %[[C2]], %[[DQ]] :
