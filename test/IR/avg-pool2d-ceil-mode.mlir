// RUN: qdq-opt %s | qdq-opt | FileCheck %s

// ceil_mode rounds the output size up, except that a window must start
// inside the input or its leading padding (ONNX, PyTorch).

// floor((16 - 3) / 2) + 1 = 7 without ceil_mode...
// CHECK-LABEL: func.func @floor_mode(%arg0: tensor<1x8x16x16xf32>) -> tensor<1x8x7x7xf32> {
// CHECK-NEXT: %0 = quant_qdq.avg_pool2d %arg0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x7x7xf32>
// CHECK-NEXT: return %0 : tensor<1x8x7x7xf32>
func.func @floor_mode(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x7x7xf32> {
  %y = quant_qdq.avg_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x7x7xf32>
  return %y : tensor<1x8x7x7xf32>
}

// ...and ceil((16 - 3) / 2) + 1 = 8 with it.
// CHECK-LABEL: func.func @ceil_mode(%arg0: tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.avg_pool2d %arg0 {ceil_mode, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT: return %0 : tensor<1x8x8x8xf32>
func.func @ceil_mode(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32> {
  %y = quant_qdq.avg_pool2d %x {ceil_mode, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// Kernel 1, stride 2, one trailing pad on a size-3 input: ceil(3 / 2) + 1 = 3
// windows, but the third would start at 4, in the trailing padding, so 2.
// CHECK-LABEL: func.func @ceil_mode_last_window_dropped(%arg0: tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32> {
// CHECK-NEXT: %0 = quant_qdq.avg_pool2d %arg0 {ceil_mode, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
// CHECK-NEXT: return %0 : tensor<1x1x2x2xf32>
func.func @ceil_mode_last_window_dropped(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32> {
  %y = quant_qdq.avg_pool2d %x {ceil_mode, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}

// count_include_pad changes the divisor, not the shape.
// CHECK-LABEL: func.func @count_include_pad(%arg0: tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.avg_pool2d "ap" %arg0 {count_include_pad, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT: return %0 : tensor<1x8x8x8xf32>
func.func @count_include_pad(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32> {
  %y = quant_qdq.avg_pool2d "ap" %x {count_include_pad, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// CHECK-LABEL: func.func @both_flags(%arg0: tensor<1x8x16x16xf32>) -> tensor<1x8x9x9xf32> {
// CHECK-NEXT: %0 = quant_qdq.avg_pool2d %arg0 {ceil_mode, count_include_pad, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x9x9xf32>
// CHECK-NEXT: return %0 : tensor<1x8x9x9xf32>
func.func @both_flags(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x9x9xf32> {
  %y = quant_qdq.avg_pool2d %x {ceil_mode, count_include_pad, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x9x9xf32>
  return %y : tensor<1x8x9x9xf32>
}
