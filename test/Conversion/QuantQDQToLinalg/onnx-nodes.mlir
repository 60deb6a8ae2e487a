// Generic ONNX nodes lower by op type, on static shapes (execution
// specializes the function first); shape-like inputs are read as constants.
// RUN: qdq-opt %s --convert-quant-qdq-to-linalg --split-input-file | FileCheck %s

// Gather reads the data at the (wrapped, clamped) index inside a generic
// over the result.
// CHECK-LABEL: func.func @gather
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<2x3xi64>) outs(%{{.*}} : tensor<2x3x4xf32>)
// CHECK: arith.addi %{{.*}}, %c7
// CHECK: arith.maxsi
// CHECK: arith.minsi %{{.*}}, %c6
// CHECK: tensor.extract %arg0[%{{.*}}, %{{.*}}] : tensor<7x4xf32>
func.func @gather(%w: tensor<7x4xf32>, %i: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %y = quant_qdq.generic "Gather" "g" %w, %i : (tensor<7x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// A forward slice is a strided view; a backward one reads first + i * step.
// CHECK-DAG: #[[BACK:.*]] = affine_map<(d0, d1) -> (d0 * -2 + 9, d1)>
// CHECK-LABEL: func.func @slices
// CHECK: tensor.extract_slice %arg0[1, 0] [3, 6] [3, 1] : tensor<10x6xf32> to tensor<3x6xf32>
// CHECK: linalg.generic {indexing_maps = [#[[BACK]], {{.*}}} ins(%arg0 : tensor<10x6xf32>) outs(%{{.*}} : tensor<5x6xf32>)
func.func @slices(%x: tensor<10x6xf32>) -> (tensor<3x6xf32>, tensor<5x6xf32>) {
  %s = arith.constant dense<1> : tensor<1xi64>
  %e = arith.constant dense<9> : tensor<1xi64>
  %a = arith.constant dense<0> : tensor<1xi64>
  %t = arith.constant dense<3> : tensor<1xi64>
  %y = quant_qdq.generic "Slice" "forward" %x, %s, %e, %a, %t : (tensor<10x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x6xf32>
  %rs = arith.constant dense<-1> : tensor<1xi64>
  %re = arith.constant dense<-9223372036854775807> : tensor<1xi64>
  %rt = arith.constant dense<-2> : tensor<1xi64>
  %z = quant_qdq.generic "Slice" "backward" %x, %rs, %re, %a, %rt : (tensor<10x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<5x6xf32>
  return %y, %z : tensor<3x6xf32>, tensor<5x6xf32>
}

// -----

// Batch dimensions broadcast NumPy-style: the size-1 one reads index 0.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32> {
  %y = quant_qdq.generic "MatMul" "mm" %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  return %y : tensor<2x5x3x6xf32>
}

// -----

// CHECK-LABEL: func.func @elementwise
// CHECK: math.erf
// CHECK: math.powf
func.func @elementwise(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %e = quant_qdq.generic "Erf" "erf" %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %p = quant_qdq.generic "Pow" "pow" %e, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %p : tensor<2x3xf32>
}

// -----

// Only the dimensions that change are merged: [2, 3, 4] to [6, 4] is one
// collapse of the first two.
// CHECK-LABEL: func.func @reshape
// CHECK: %[[Y:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK-NOT: tensor.expand_shape
// CHECK: return %[[Y]]
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %s = arith.constant dense<[6, 4]> : tensor<2xi64>
  %y = quant_qdq.generic "Reshape" "r" %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// -----

// Attention's heads split from a projection ([tokens, batch, features] to
// [tokens, heads, head size]): both shapes are groups of [197, 1, 12, 64],
// so the reshape expands to it, a view of a strided slice of the fused
// Q/K/V projection too, and collapses from it (a collapse its consumer, a
// transpose, then takes in). A unit dimension left at the end of one shape
// becomes a unit dimension that the other's last dimension takes in.
// CHECK-LABEL: func.func @reshape_heads
// CHECK: %[[E:.*]] = tensor.expand_shape %arg0 {{\[}}[0], [1], [2, 3]] output_shape [197, 1, 12, 64] : tensor<197x1x768xf32> into tensor<197x1x12x64xf32>
// CHECK: tensor.collapse_shape %[[E]] {{\[}}[0], [1, 2], [3]] : tensor<197x1x12x64xf32> into tensor<197x12x64xf32>
// CHECK: %[[F:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1], [2], [3]] output_shape [2, 2, 6, 1] : tensor<4x6x1xf32> into tensor<2x2x6x1xf32>
// CHECK: tensor.collapse_shape %[[F]] {{\[}}[0], [1], [2, 3]] : tensor<2x2x6x1xf32> into tensor<2x2x6xf32>
func.func @reshape_heads(%x: tensor<197x1x768xf32>, %z: tensor<4x6x1xf32>) -> (tensor<197x12x64xf32>, tensor<2x2x6xf32>) {
  %s = arith.constant dense<[197, 12, 64]> : tensor<3xi64>
  %y = quant_qdq.generic "Reshape" "r" %x, %s : (tensor<197x1x768xf32>, tensor<3xi64>) -> tensor<197x12x64xf32>
  %t = arith.constant dense<[2, 2, 6]> : tensor<3xi64>
  %w = quant_qdq.generic "Reshape" "w" %z, %t : (tensor<4x6x1xf32>, tensor<3xi64>) -> tensor<2x2x6xf32>
  return %y, %w : tensor<197x12x64xf32>, tensor<2x2x6xf32>
}

// -----

// Unit dimensions left at the end of one shape each get a unit dimension of
// their own, which the other shape's last dimension takes in.
// CHECK-LABEL: func.func @reshape_units
// CHECK: tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [2, 8, 1] : tensor<2x8xf32> into tensor<2x8x1xf32>
// CHECK: tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [1, 1, 1] : tensor<1x1xf32> into tensor<1x1x1xf32>
// CHECK: tensor.collapse_shape %arg2 {{\[}}[0], [1, 2, 3]] : tensor<2x8x1x1xf32> into tensor<2x8xf32>
func.func @reshape_units(%x: tensor<2x8xf32>, %y: tensor<1x1xf32>, %z: tensor<2x8x1x1xf32>)
    -> (tensor<2x8x1xf32>, tensor<1x1x1xf32>, tensor<2x8xf32>) {
  %s = arith.constant dense<[2, 8, 1]> : tensor<3xi64>
  %a = quant_qdq.generic "Reshape" "a" %x, %s : (tensor<2x8xf32>, tensor<3xi64>) -> tensor<2x8x1xf32>
  %t = arith.constant dense<[1, 1, 1]> : tensor<3xi64>
  %b = quant_qdq.generic "Reshape" "b" %y, %t : (tensor<1x1xf32>, tensor<3xi64>) -> tensor<1x1x1xf32>
  %u = arith.constant dense<[2, 8]> : tensor<2xi64>
  %c = quant_qdq.generic "Reshape" "c" %z, %u : (tensor<2x8x1x1xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  return %a, %b, %c : tensor<2x8x1xf32>, tensor<1x1x1xf32>, tensor<2x8xf32>
}

// -----

// Split: each piece a slice at the running offset; an empty piece (at the
// end, where a slice may not start, or empty through another dimension)
// is an empty tensor, and the offset still moves by its size.
// CHECK-LABEL: func.func @split_empty_pieces
// CHECK: tensor.extract_slice %arg0[0, 0] [2, 8] [1, 1] : tensor<2x8xf32> to tensor<2x8xf32>
// CHECK: tensor.empty() : tensor<2x0xf32>
// CHECK: tensor.empty() : tensor<0x2xf32>
// CHECK: tensor.empty() : tensor<0x4xf32>
func.func @split_empty_pieces(%x: tensor<2x8xf32>, %z: tensor<0x6xf32>)
    -> (tensor<2x8xf32>, tensor<2x0xf32>, tensor<0x2xf32>, tensor<0x4xf32>) {
  %s = arith.constant dense<[8, 0]> : tensor<2xi64>
  %a:2 = quant_qdq.generic "Split" "whole_head" %x, %s {layer_attributes = {axis = -1 : i64}} : (tensor<2x8xf32>, tensor<2xi64>) -> (tensor<2x8xf32>, tensor<2x0xf32>)
  %t = arith.constant dense<[2, 4]> : tensor<2xi64>
  %b:2 = quant_qdq.generic "Split" "zero_batch" %z, %t {layer_attributes = {axis = 1 : i64}} : (tensor<0x6xf32>, tensor<2xi64>) -> (tensor<0x2xf32>, tensor<0x4xf32>)
  return %a#0, %a#1, %b#0, %b#1 : tensor<2x8xf32>, tensor<2x0xf32>, tensor<0x2xf32>, tensor<0x4xf32>
}
