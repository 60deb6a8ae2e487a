// The user's spec wins over a case: resnet-v1 would quantize the skip input
// of the Add, the spec keeps the Add in float.
// RUN: qdq-opt %s --insert-qdq=resnet-v1 --qdq-spec=%S/Inputs/keep-add.json --qdq-report=- 2>&1 | FileCheck %s

func.func @block(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %c = quant_qdq.conv2d "conv" %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %s = quant_qdq.add "add" %c, %x : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %s : tensor<1x4x4x4xf32>
}

// CHECK: add Add [] no spec 'add'
// CHECK: %[[C:.*]] = quant_qdq.conv2d "conv"
// CHECK-NEXT: quant_qdq.add "add" %[[C]], %arg0 :
