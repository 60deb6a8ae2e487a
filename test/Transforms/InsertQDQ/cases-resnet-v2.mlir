// resnet-v2 = residual + bn + maxpool: the pre-activation BN (fed by an Add,
// not a convolution) and the max pooling get input Q/DQ; the BN after a
// convolution does not (TensorRT folds it).
// RUN: qdq-opt %s --insert-qdq=resnet-v2 --qdq-report=%t.report | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.report

func.func @preact(%x: tensor<1x4x8x8xf32>, %g: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %w = arith.constant dense<0.1> : tensor<4x4x3x3xf32>
  %bn0 = quant_qdq.batch_norm "preact_bn" %x, %g, %g, %g, %g : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r0 = quant_qdq.activation relu "preact_relu" %bn0 : tensor<1x4x8x8xf32>
  %c = quant_qdq.conv2d "conv" %r0, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %bn1 = quant_qdq.batch_norm "post_conv_bn" %c, %g, %g, %g, %g : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %p = quant_qdq.max_pool2d "pool" %bn1 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %p : tensor<1x4x4x4xf32>
}

// CHECK: %[[QX:.*]] = quant_qdq.quantize %arg0
// CHECK: %[[DQX:.*]] = quant_qdq.dequantize %[[QX]]
// CHECK: quant_qdq.batch_norm "preact_bn" %[[DQX]]
// CHECK: %[[C:.*]] = quant_qdq.conv2d "conv"
// CHECK-NEXT: %[[BN1:.*]] = quant_qdq.batch_norm "post_conv_bn" %[[C]],
// CHECK-NEXT: %[[QP:.*]] = quant_qdq.quantize %[[BN1]]
// CHECK-NEXT: %[[DQP:.*]] = quant_qdq.dequantize %[[QP]]
// CHECK-NEXT: quant_qdq.max_pool2d "pool" %[[DQP]]

// REPORT: layer class inputs weight rule
// REPORT-NEXT: preact_bn BatchNormalization [0] no case bn
// REPORT-NEXT: preact_relu Activation [] no default table
// REPORT-NEXT: conv Conv2D [0] yes default table
// REPORT-NEXT: post_conv_bn BatchNormalization [] no default table
// REPORT-NEXT: pool MaxPooling2D [0] no case maxpool
