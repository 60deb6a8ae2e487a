// Ungrouped f32 convolutions become contractions: NCHW ones through im2col
// (a copy of every input window, indexed without divisions; none for a 1x1
// kernel at stride 1), NHWC ones reading their image in place; others stay
// convolutions.
// RUN: qdq-opt %s --qdq-convolutions-as-matmuls --split-input-file | FileCheck %s

// CHECK-DAG: #[[WINDOW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2 * 3, d5 * 2 + d3 * 3)>
// CHECK-DAG: #[[ID6:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: #[[COLS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @nchw
// CHECK: %[[COLUMNS:.*]] = linalg.generic {indexing_maps = [#[[WINDOW]], #[[ID6]]]
// CHECK-SAME: ins(%{{.*}} : tensor<2x3x13x13xf32>) outs(%{{.*}} : tensor<2x3x3x3x4x4xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[COLUMNS]] {{\[}}[0], [1, 2, 3], [4, 5]] : tensor<2x3x3x3x4x4xf32> into tensor<2x27x16xf32>
// CHECK: %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<8x3x3x3xf32> into tensor<8x27xf32>
// CHECK: %[[ACC:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<2x8x4x4xf32> into tensor<2x8x16xf32>
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[W]], #[[COLS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[F]], %[[C]] : tensor<8x27xf32>, tensor<2x27x16xf32>) outs(%[[ACC]] : tensor<2x8x16xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.expand_shape %[[P]] {{\[}}[0], [1], [2, 3]] output_shape [2, 8, 4, 4]
// CHECK-NOT: linalg.conv_2d
func.func @nchw(%x: tensor<2x3x13x13xf32>, %w: tensor<8x3x3x3xf32>,
                %acc: tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32> {
  %r = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>,
                                 dilations = dense<3> : tensor<2xi64>}
      ins(%x, %w : tensor<2x3x13x13xf32>, tensor<8x3x3x3xf32>)
      outs(%acc : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  return %r : tensor<2x8x4x4xf32>
}

// -----

// A 1x1 kernel at stride 1 reads its input in place: no im2col copy.
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x5x5xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : tensor<2x3x5x5xf32> into tensor<2x3x25xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[C]] : tensor<8x3xf32>, tensor<2x3x25xf32>)
// CHECK-NOT: linalg.conv_2d
func.func @pointwise(%x: tensor<2x3x5x5xf32>, %w: tensor<8x3x1x1xf32>,
                     %acc: tensor<2x8x5x5xf32>) -> tensor<2x8x5x5xf32> {
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>,
                                 dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x3x5x5xf32>, tensor<8x3x1x1xf32>)
      outs(%acc : tensor<2x8x5x5xf32>) -> tensor<2x8x5x5xf32>
  return %r : tensor<2x8x5x5xf32>
}

// -----

// An NHWC window at stride 1 is a direct convolution: a contraction that
// reads its image in place, at window indices.
// CHECK-DAG: #[[IMAGE:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4 * 2, d2 + d5 * 2, d6)>
// CHECK-DAG: #[[FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
// CHECK-LABEL: func.func @nhwc
// CHECK: linalg.generic {indexing_maps = [#[[IMAGE]], #[[FILTER]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<1x10x10x3xf32>, tensor<3x3x3x8xf32>) outs(%{{.*}} : tensor<1x6x6x8xf32>)
// CHECK-NOT: linalg.conv_2d
func.func @nhwc(%x: tensor<1x10x10x3xf32>, %w: tensor<3x3x3x8xf32>,
                %acc: tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<2xi64>,
                                 dilations = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x10x3xf32>, tensor<3x3x3x8xf32>)
      outs(%acc : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %r : tensor<1x6x6x8xf32>
}

// -----

// A strided NHWC 1x1 kernel multiplies a strided view of its input by the
// filter.
// CHECK-DAG: #[[PIXELS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[WEIGHTS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d4, d3)>
// CHECK-LABEL: func.func @nhwc_pointwise_strided
// CHECK-DAG: %[[S:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 3, 3, 4] [1, 2, 2, 1] : tensor<1x6x6x4xf32> to tensor<1x3x3x4xf32>
// CHECK-DAG: %[[W:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<1x1x4x8xf32> into tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[PIXELS]], #[[WEIGHTS]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[S]], %[[W]] : tensor<1x3x3x4xf32>, tensor<4x8xf32>)
// CHECK-NOT: linalg.conv_2d
func.func @nhwc_pointwise_strided(%x: tensor<1x6x6x4xf32>, %w: tensor<1x1x4x8xf32>,
                                  %acc: tensor<1x3x3x8xf32>) -> tensor<1x3x3x8xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>,
                                 dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x6x6x4xf32>, tensor<1x1x4x8xf32>)
      outs(%acc : tensor<1x3x3x8xf32>) -> tensor<1x3x3x8xf32>
  return %r : tensor<1x3x3x8xf32>
}

// -----

// A strided NHWC window is a direct convolution too, its image read at
// the stride: no im2col copy.
// CHECK-DAG: #[[IMAGE:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d6)>
// CHECK-DAG: #[[FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
// CHECK-LABEL: func.func @nhwc_strided_window
// CHECK: linalg.generic {indexing_maps = [#[[IMAGE]], #[[FILTER]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>) outs(%{{.*}} : tensor<1x4x4x8xf32>)
// CHECK-NOT: linalg.conv_2d
// CHECK-NOT: tensor<1x4x4x3x3x3xf32>
func.func @nhwc_strided_window(%x: tensor<1x9x9x3xf32>, %w: tensor<3x3x3x8xf32>,
                               %acc: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>,
                                 dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>)
      outs(%acc : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %r : tensor<1x4x4x8xf32>
}

// -----

// Grouped, dynamic and integer convolutions are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK: linalg.conv_2d_nchw_fchw ins(%{{.*}} : tensor<?x3x10x10xf32>
// CHECK: linalg.conv_2d_nchw_fchw ins(%{{.*}} : tensor<1x3x10x10xi32>
func.func @untouched(%g: tensor<1x2x2x10x10xf32>, %gw: tensor<2x4x2x3x3xf32>,
                     %gacc: tensor<1x2x4x8x8xf32>, %d: tensor<?x3x10x10xf32>,
                     %w: tensor<8x3x3x3xf32>, %dacc: tensor<?x8x8x8xf32>,
                     %i: tensor<1x3x10x10xi32>, %iw: tensor<8x3x3x3xi32>,
                     %iacc: tensor<1x8x8x8xi32>)
    -> (tensor<1x2x4x8x8xf32>, tensor<?x8x8x8xf32>, tensor<1x8x8x8xi32>) {
  %0 = linalg.conv_2d_ngchw_gfchw
      ins(%g, %gw : tensor<1x2x2x10x10xf32>, tensor<2x4x2x3x3xf32>)
      outs(%gacc : tensor<1x2x4x8x8xf32>) -> tensor<1x2x4x8x8xf32>
  %1 = linalg.conv_2d_nchw_fchw
      ins(%d, %w : tensor<?x3x10x10xf32>, tensor<8x3x3x3xf32>)
      outs(%dacc : tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
  %2 = linalg.conv_2d_nchw_fchw
      ins(%i, %iw : tensor<1x3x10x10xi32>, tensor<8x3x3x3xi32>)
      outs(%iacc : tensor<1x8x8x8xi32>) -> tensor<1x8x8x8xi32>
  return %0, %1, %2 : tensor<1x2x4x8x8xf32>, tensor<?x8x8x8xf32>, tensor<1x8x8x8xi32>
}
