// RUN: qdq-opt %s -emit-bytecode | qdq-opt | FileCheck %s
// RUN: qdq-opt %s -emit-bytecode | qdq-opt -emit-bytecode | qdq-opt | FileCheck %s
// RUN: qdq-opt %s -emit-bytecode -o %t.mlirbc
// RUN: qdq-opt %t.mlirbc | FileCheck %s

// Bytecode round trip of every op, the enum attributes and the quantizer.

// CHECK-LABEL: func.func @network(%arg0: tensor<1x8x16x16xf32>, %arg1: tensor<8x1x3x3xf32>, %arg2: tensor<8xf32>, %arg3: tensor<10x8xf32>) -> tensor<1x10xf32> {
// CHECK-NEXT: %0 = quant_qdq.conv2d "dw" %arg0, %arg1, %arg2 {groups = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
// CHECK-NEXT: %1 = quant_qdq.batch_norm "bn" %0, %arg2, %arg2, %arg2, %arg2 {epsilon = 1.000000e-03 : f32} : (tensor<1x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
// CHECK-NEXT: %2 = quant_qdq.activation clip "relu6" %1 {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<1x8x16x16xf32>
// CHECK-NEXT: %3 = quant_qdq.fake_quant %2 <bits = 8, is_signed = false, symmetric = false> scale [2.350000e-02] zero_point [3] : tensor<1x8x16x16xf32>
// CHECK-NEXT: %4 = quant_qdq.max_pool2d %3 {ceil_mode, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT: %5 = quant_qdq.avg_pool2d %4 {count_include_pad, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x9x9xf32>
// CHECK-NEXT: %6 = quant_qdq.pad %5 {mode = #quant_qdq<pad_mode edge>, pads = array<i64: 0, 0, 0, 0, 0, 0, 1, 1>} : (tensor<1x8x9x9xf32>) -> tensor<1x8x10x10xf32>
// CHECK-NEXT: %7 = quant_qdq.add %6, %6 : (tensor<1x8x10x10xf32>, tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
// CHECK-NEXT: %8 = quant_qdq.multiply %7, %6 : (tensor<1x8x10x10xf32>, tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
// CHECK-NEXT: %9 = quant_qdq.concat %7, %8 {axis = -3 : i64} : (tensor<1x8x10x10xf32>, tensor<1x8x10x10xf32>) -> tensor<1x16x10x10xf32>
// CHECK-NEXT: %10 = quant_qdq.transpose %9 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x16x10x10xf32>) -> tensor<1x10x10x16xf32>
// CHECK-NEXT: %11 = quant_qdq.global_avg_pool2d %10 {keep_dims = false, layout = #quant_qdq<layout nhwc>} : (tensor<1x10x10x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT: %12 = quant_qdq.global_max_pool2d %9 : (tensor<1x16x10x10xf32>) -> tensor<1x16x1x1xf32>
// CHECK-NEXT: %13 = quant_qdq.flatten %12 : (tensor<1x16x1x1xf32>) -> tensor<1x16xf32>
// CHECK-NEXT: %14 = quant_qdq.reshape %13 {shape = array<i64: -1, 8>} : (tensor<1x16xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %15 = quant_qdq.quantize %arg3 <bits = 4, axis = 0> scale [1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 2.000000e+00] : tensor<10x8xf32> -> tensor<10x8xi4>
// CHECK-NEXT: %16 = quant_qdq.dequantize %15 <bits = 4, axis = 0> scale [1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 2.000000e+00] : tensor<10x8xi4> -> tensor<10x8xf32>
// CHECK-NEXT: %17 = quant_qdq.dense "fc" %14, %16 {transpose_weight} : (tensor<2x8xf32>, tensor<10x8xf32>) -> tensor<2x10xf32>
// CHECK-NEXT: %18 = quant_qdq.dropout %17 {rate = 2.500000e-01 : f32} : (tensor<2x10xf32>) -> tensor<2x10xf32>
// CHECK-NEXT: %19 = quant_qdq.softmax %18 {axis = 0 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
// CHECK-NEXT: %20 = quant_qdq.generic "ReduceSum" "sum" %19, %11 {domain = "ai.onnx", layer_attributes = {keepdims = 1 : i64}} : (tensor<2x10xf32>, tensor<1x16xf32>) -> tensor<1x10xf32>
// CHECK-NEXT: return %20 : tensor<1x10xf32>
func.func @network(%x: tensor<1x8x16x16xf32>, %w: tensor<8x1x3x3xf32>, %v: tensor<8xf32>, %fw: tensor<10x8xf32>) -> tensor<1x10xf32> {
  %0 = quant_qdq.conv2d "dw" %x, %w, %v {groups = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %1 = quant_qdq.batch_norm "bn" %0, %v, %v, %v, %v {epsilon = 1.0e-3 : f32} : (tensor<1x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %2 = quant_qdq.activation clip "relu6" %1 {max = 6.0 : f32, min = 0.0 : f32} : tensor<1x8x16x16xf32>
  %3 = quant_qdq.fake_quant %2 <bits = 8, is_signed = false, symmetric = false> scale [0.0235] zero_point [3] : tensor<1x8x16x16xf32>
  %4 = quant_qdq.max_pool2d %3 {ceil_mode, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
  %5 = quant_qdq.avg_pool2d %4 {count_include_pad, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x9x9xf32>
  %6 = quant_qdq.pad %5 {mode = #quant_qdq<pad_mode edge>, pads = array<i64: 0, 0, 0, 0, 0, 0, 1, 1>} : (tensor<1x8x9x9xf32>) -> tensor<1x8x10x10xf32>
  %7 = quant_qdq.add %6, %6 : (tensor<1x8x10x10xf32>, tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
  %8 = quant_qdq.multiply %7, %6 : (tensor<1x8x10x10xf32>, tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
  %9 = quant_qdq.concat %7, %8 {axis = -3 : i64} : (tensor<1x8x10x10xf32>, tensor<1x8x10x10xf32>) -> tensor<1x16x10x10xf32>
  %10 = quant_qdq.transpose %9 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x16x10x10xf32>) -> tensor<1x10x10x16xf32>
  %11 = quant_qdq.global_avg_pool2d %10 {keep_dims = false, layout = #quant_qdq<layout nhwc>} : (tensor<1x10x10x16xf32>) -> tensor<1x16xf32>
  %12 = quant_qdq.global_max_pool2d %9 : (tensor<1x16x10x10xf32>) -> tensor<1x16x1x1xf32>
  %13 = quant_qdq.flatten %12 : (tensor<1x16x1x1xf32>) -> tensor<1x16xf32>
  %14 = quant_qdq.reshape %13 {shape = array<i64: -1, 8>} : (tensor<1x16xf32>) -> tensor<2x8xf32>
  %15 = quant_qdq.quantize %fw <bits = 4, axis = 0> scale [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0] : tensor<10x8xf32> -> tensor<10x8xi4>
  %16 = quant_qdq.dequantize %15 <bits = 4, axis = 0> scale [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0] : tensor<10x8xi4> -> tensor<10x8xf32>
  %17 = quant_qdq.dense "fc" %14, %16 {transpose_weight} : (tensor<2x8xf32>, tensor<10x8xf32>) -> tensor<2x10xf32>
  %18 = quant_qdq.dropout %17 {rate = 0.25 : f32} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  %19 = quant_qdq.softmax %18 {axis = 0 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  %20 = quant_qdq.generic "ReduceSum" "sum" %19, %11 {domain = "ai.onnx", layer_attributes = {keepdims = 1 : i64}} : (tensor<2x10xf32>, tensor<1x16xf32>) -> tensor<1x10xf32>
  return %20 : tensor<1x10xf32>
}
