// RUN: qdq-opt %s | qdq-opt | FileCheck %s

// A convolution without bias has two operands; the printed form lists only
// those two and the functional type has two inputs.

// CHECK-LABEL: func.func @no_bias(%arg0: tensor<1x16x28x28xf32>, %arg1: tensor<32x16x5x5xf32>) -> tensor<1x32x28x28xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d "conv_nb" %arg0, %arg1 {pads = array<i64: 2, 2, 2, 2>} : (tensor<1x16x28x28xf32>, tensor<32x16x5x5xf32>) -> tensor<1x32x28x28xf32>
// CHECK-NEXT: return %0 : tensor<1x32x28x28xf32>
func.func @no_bias(%x: tensor<1x16x28x28xf32>, %w: tensor<32x16x5x5xf32>) -> tensor<1x32x28x28xf32> {
  %y = quant_qdq.conv2d "conv_nb" %x, %w {pads = array<i64: 2, 2, 2, 2>} : (tensor<1x16x28x28xf32>, tensor<32x16x5x5xf32>) -> tensor<1x32x28x28xf32>
  return %y : tensor<1x32x28x28xf32>
}

// CHECK-LABEL: func.func @no_bias_unnamed(%arg0: tensor<1x1x5x5xf32>, %arg1: tensor<1x1x5x5xf32>) -> tensor<1x1x1x1xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d %arg0, %arg1 : (tensor<1x1x5x5xf32>, tensor<1x1x5x5xf32>) -> tensor<1x1x1x1xf32>
// CHECK-NEXT: return %0 : tensor<1x1x1x1xf32>
func.func @no_bias_unnamed(%x: tensor<1x1x5x5xf32>, %w: tensor<1x1x5x5xf32>) -> tensor<1x1x1x1xf32> {
  %y = quant_qdq.conv2d %x, %w : (tensor<1x1x5x5xf32>, tensor<1x1x5x5xf32>) -> tensor<1x1x1x1xf32>
  return %y : tensor<1x1x1x1xf32>
}
