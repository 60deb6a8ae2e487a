// A ResNet-v1 stem and basic block in the quant_qdq dialect, laid out as the
// NVIDIA toolkit's Keras ResNet (NHWC would read the same; this one is NCHW,
// as imported from ONNX). Weights are splat constants to keep it short.
func.func @resnet_v1_block(%image: tensor<1x3x32x32xf32>) -> tensor<1x10xf32> {
  %w_stem = arith.constant dense<0.05> : tensor<16x3x3x3xf32>
  %w_conv1 = arith.constant dense<0.02> : tensor<16x16x3x3xf32>
  %w_conv2 = arith.constant dense<0.02> : tensor<16x16x3x3xf32>
  %w_fc = arith.constant dense<0.1> : tensor<10x16xf32>
  %b_fc = arith.constant dense<0.0> : tensor<10xf32>
  %gamma = arith.constant dense<1.0> : tensor<16xf32>
  %beta = arith.constant dense<0.0> : tensor<16xf32>
  %mean = arith.constant dense<0.0> : tensor<16xf32>
  %var = arith.constant dense<1.0> : tensor<16xf32>

  %0 = quant_qdq.conv2d "stem_conv" %image, %w_stem {pads = array<i64: 1, 1, 1, 1>}
      : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32>
  %1 = quant_qdq.batch_norm "stem_bn" %0, %gamma, %beta, %mean, %var
      : (tensor<1x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
  %2 = quant_qdq.activation relu "stem_relu" %1 : tensor<1x16x32x32xf32>
  %3 = quant_qdq.max_pool2d "stem_pool" %2 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<1x16x32x32xf32>) -> tensor<1x16x16x16xf32>

  %4 = quant_qdq.conv2d "block1_conv1" %3, %w_conv1 {pads = array<i64: 1, 1, 1, 1>}
      : (tensor<1x16x16x16xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x16x16xf32>
  %5 = quant_qdq.batch_norm "block1_bn1" %4, %gamma, %beta, %mean, %var
      : (tensor<1x16x16x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  %6 = quant_qdq.activation relu "block1_relu1" %5 : tensor<1x16x16x16xf32>
  %7 = quant_qdq.conv2d "block1_conv2" %6, %w_conv2 {pads = array<i64: 1, 1, 1, 1>}
      : (tensor<1x16x16x16xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x16x16xf32>
  %8 = quant_qdq.batch_norm "block1_bn2" %7, %gamma, %beta, %mean, %var
      : (tensor<1x16x16x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  %9 = quant_qdq.add "block1_add" %8, %3
      : (tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %10 = quant_qdq.activation relu "block1_out" %9 : tensor<1x16x16x16xf32>

  %11 = quant_qdq.global_avg_pool2d "avg_pool" %10
      : (tensor<1x16x16x16xf32>) -> tensor<1x16x1x1xf32>
  %12 = quant_qdq.flatten "flatten" %11 : (tensor<1x16x1x1xf32>) -> tensor<1x16xf32>
  %13 = quant_qdq.dense "fc" %12, %w_fc, %b_fc {transpose_weight}
      : (tensor<1x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<1x10xf32>
  return %13 : tensor<1x10xf32>
}
