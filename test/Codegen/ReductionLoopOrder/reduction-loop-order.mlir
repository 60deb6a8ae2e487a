// Contractions get their reductions in front of the last parallel loop;
// element-wise ops and ops already in that order are left alone.
// RUN: qdq-opt %s --convert-quant-qdq-to-linalg --qdq-reduction-loop-order | FileCheck %s

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d3, d2 + d4, d5 + d6)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d3, d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
// CHECK-LABEL: func.func @conv_relu
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-NOT: linalg.conv_2d
func.func @conv_relu(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %c = quant_qdq.conv2d %x, %w : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  %r = quant_qdq.activation relu %c : tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// The dense contraction (b, n, k) becomes (b, k, n).
// CHECK-LABEL: func.func @dense
// CHECK: iterator_types = ["parallel", "reduction", "parallel"]
func.func @dense(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %y = quant_qdq.dense %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
