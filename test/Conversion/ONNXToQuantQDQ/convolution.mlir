// RUN: qdq-opt %s --split-input-file --convert-onnx-to-quant-qdq | FileCheck %s

// Conv with explicit pads and groups; a 1-D convolution stays generic.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @conv
func.func @conv(%x: tensor<1x8x16x16xf32>, %w: tensor<8x1x3x3xf32>, %b: tensor<8xf32>, %s: tensor<1x4x32xf32>, %ws: tensor<4x4x3xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x4x30xf32>) {
  // CHECK: %[[C:.*]] = quant_qdq.conv2d "dw" %{{.*}}, %{{.*}}, %{{.*}} {groups = 8 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %0 = quant_qdq.generic "Conv" "dw" %x, %w, %b {layer_attributes = {group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}} : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  // CHECK: quant_qdq.generic "Conv" "conv1d"
  %1 = quant_qdq.generic "Conv" "conv1d" %s, %ws : (tensor<1x4x32xf32>, tensor<4x4x3xf32>) -> tensor<1x4x30xf32>
  // CHECK: return %[[C]], %{{.*}}
  return %0, %1 : tensor<1x8x8x8xf32>, tensor<1x4x30xf32>
}
}

// -----

// auto_pad SAME_UPPER becomes explicit pads when the spatial dims are
// static, the larger half after; SAME_LOWER puts it before. With a dynamic
// height the node stays generic.
// CHECK-LABEL: func @auto_pad
func.func @auto_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x2x2xf32>, %d: tensor<1x3x?x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x?x8xf32>) {
  // CHECK: quant_qdq.conv2d "upper" {{.*}} {pads = array<i64: 0, 0, 1, 1>}
  %0 = quant_qdq.generic "Conv" "upper" %x, %w {layer_attributes = {auto_pad = "SAME_UPPER"}} : (tensor<1x3x8x8xf32>, tensor<4x3x2x2xf32>) -> tensor<1x4x8x8xf32>
  // CHECK: quant_qdq.conv2d "lower" {{.*}} {pads = array<i64: 1, 1, 0, 0>}
  %1 = quant_qdq.generic "Conv" "lower" %x, %w {layer_attributes = {auto_pad = "SAME_LOWER"}} : (tensor<1x3x8x8xf32>, tensor<4x3x2x2xf32>) -> tensor<1x4x8x8xf32>
  // CHECK: quant_qdq.generic "Conv" "dynamic"
  %2 = quant_qdq.generic "Conv" "dynamic" %d, %w {layer_attributes = {auto_pad = "SAME_UPPER"}} : (tensor<1x3x?x8xf32>, tensor<4x3x2x2xf32>) -> tensor<1x4x?x8xf32>
  return %0, %1, %2 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x?x8xf32>
}

// -----

// Pools: dilations and ceil_mode carried; an average pool with dilations,
// or a max pool whose indices are read, stays generic.
// CHECK-LABEL: func @pools
func.func @pools(%x: tensor<1x8x9x9xf32>) -> (tensor<1x8x5x5xf32>, tensor<1x8x5x5xf32>, tensor<1x8x3x3xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xi64>) {
  // CHECK: quant_qdq.max_pool2d "max" %{{.*}} {ceil_mode, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}
  %0 = quant_qdq.generic "MaxPool" "max" %x {layer_attributes = {ceil_mode = 1 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}} : (tensor<1x8x9x9xf32>) -> tensor<1x8x5x5xf32>
  // CHECK: quant_qdq.avg_pool2d "avg" %{{.*}} {count_include_pad, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
  %1 = quant_qdq.generic "AveragePool" "avg" %x {layer_attributes = {count_include_pad = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}} : (tensor<1x8x9x9xf32>) -> tensor<1x8x5x5xf32>
  // CHECK: quant_qdq.generic "AveragePool" "dilated"
  %2 = quant_qdq.generic "AveragePool" "dilated" %x {layer_attributes = {dilations = array<i64: 2, 2>, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>}} : (tensor<1x8x9x9xf32>) -> tensor<1x8x3x3xf32>
  // CHECK: quant_qdq.generic "MaxPool" "indices"
  %3:2 = quant_qdq.generic "MaxPool" "indices" %x {layer_attributes = {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}} : (tensor<1x8x9x9xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xi64>)
  return %0, %1, %2, %3#0, %3#1 : tensor<1x8x5x5xf32>, tensor<1x8x5x5xf32>, tensor<1x8x3x3xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xi64>
}

// -----

// Global pools, and ReduceMean over H and W: axes as an attribute before
// opset 18, as a constant input from it on.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @global_pools
func.func @global_pools(%x: tensor<1x8x4x4xf32>) -> (tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8xf32>, tensor<1x8x4xf32>) {
  // CHECK: quant_qdq.global_avg_pool2d "gap" %{{.*}} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %0 = quant_qdq.generic "GlobalAveragePool" "gap" %x : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  // CHECK: quant_qdq.global_max_pool2d "gmp" %{{.*}} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %1 = quant_qdq.generic "GlobalMaxPool" "gmp" %x : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  // CHECK: quant_qdq.global_avg_pool2d "mean" %{{.*}} {keep_dims = false} : (tensor<1x8x4x4xf32>) -> tensor<1x8xf32>
  %2 = quant_qdq.generic "ReduceMean" "mean" %x {layer_attributes = {axes = array<i64: -1, 2>, keepdims = 0 : i64}} : (tensor<1x8x4x4xf32>) -> tensor<1x8xf32>
  // CHECK: quant_qdq.generic "ReduceMean" "width"
  %3 = quant_qdq.generic "ReduceMean" "width" %x {layer_attributes = {axes = array<i64: 3>, keepdims = 0 : i64}} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4xf32>
  return %0, %1, %2, %3 : tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8xf32>, tensor<1x8x4xf32>
}
}

// -----

module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 18 : i64}} {
// CHECK-LABEL: func @reduce_mean_axes_input
func.func @reduce_mean_axes_input(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32> {
  %axes = arith.constant dense<[2, 3]> : tensor<2xi64>
  // CHECK-NOT: arith.constant
  // CHECK: quant_qdq.global_avg_pool2d "mean" %{{.*}} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %0 = quant_qdq.generic "ReduceMean" "mean" %x, %axes : (tensor<1x8x4x4xf32>, tensor<2xi64>) -> tensor<1x8x1x1xf32>
  return %0 : tensor<1x8x1x1xf32>
}
}
