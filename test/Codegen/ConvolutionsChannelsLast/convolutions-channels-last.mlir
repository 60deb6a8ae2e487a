// NCHW convolutions and poolings run in NHWC; the transposes around them
// cancel through pads, slices, broadcasts and element-wise ops, leaving one
// into NHWC at the input and one back at the output.
// RUN: qdq-opt %s --qdq-convolutions-channels-last --split-input-file | FileCheck %s

// A residual block: 3x3 convolution, ReLU, 1x1 convolution, the sum with
// the ReLU's output. The constant filters are transposed here, to HWCF.
// CHECK-DAG: #[[TO_NHWC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
// CHECK-DAG: #[[TO_NCHW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @residual
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x4xf32>, %[[B:.*]]: tensor<2xf32>)
// CHECK-DAG: %[[W1:.*]] = arith.constant dense<{{.*}}> : tensor<3x3x2x2xf32>
// CHECK-DAG: %[[W2:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]]]> : tensor<1x1x2x2xf32>
// CHECK: %[[IN:.*]] = linalg.generic {indexing_maps = [#[[TO_NHWC]], {{.*}}]} ins(%[[X]] : tensor<1x2x4x4xf32>) outs(%{{.*}} : tensor<1x4x4x2xf32>)
// CHECK: %[[PADDED:.*]] = tensor.pad %[[IN]] low[0, 2, 1, 0] high[0, 0, 1, 0]
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[BIAS]], {{.*}}]} ins(%[[B]] : tensor<2xf32>) outs(%{{.*}} : tensor<1x4x4x2xf32>)
// CHECK: %[[C1:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[PADDED]], %[[W1]] : tensor<1x6x6x2xf32>, tensor<3x3x2x2xf32>) outs(%[[INIT]] : tensor<1x4x4x2xf32>)
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[C1]] : tensor<1x4x4x2xf32>)
// CHECK: arith.maximumf
// CHECK: %[[C2:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[RELU]], %[[W2]] : tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[C2]], %[[RELU]] : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) outs(%{{.*}} : tensor<1x4x4x2xf32>)
// CHECK: arith.addf
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[TO_NCHW]], {{.*}}]} ins(%[[SUM]] : tensor<1x4x4x2xf32>) outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK: return %[[OUT]]
// CHECK-NOT: linalg.conv_2d_nchw
#id = affine_map<(a, b, c, d) -> (a, b, c, d)>
func.func @residual(%x: tensor<1x2x4x4xf32>, %b: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<0.5> : tensor<2x2x3x3xf32>
  %w2 = arith.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %p = tensor.pad %x low[0, 0, 2, 1] high[0, 0, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %bias = linalg.broadcast ins(%b : tensor<2xf32>) outs(%e : tensor<1x2x4x4xf32>) dimensions = [0, 2, 3]
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w1 : tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) outs(%bias : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1 : tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%relu, %w2 : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) outs(%zeros : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2, %relu : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  return %sum : tensor<1x2x4x4xf32>
}

// -----

// A max pooling of a strided slice of a convolution's output: the slice
// and the pooling's initial fill move to NHWC, the transposes meet.
// CHECK-LABEL: func.func @pooling
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK: %[[S:.*]] = tensor.extract_slice %[[C]][0, 1, 2, 0] [1, 3, 2, 5] [1, 2, 1, 1] : tensor<1x6x6x5xf32> to tensor<1x3x2x5xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x1x5xf32>)
// CHECK: %[[P:.*]] = linalg.pooling_nhwc_max {{.*}} ins(%[[S]], %{{.*}} : tensor<1x3x2x5xf32>, tensor<2x2xf32>) outs(%[[F]] : tensor<1x2x1x5xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<1x2x1x5xf32>) outs(%{{.*}} : tensor<1x5x2x1xf32>)
// CHECK-NOT: linalg.generic
// CHECK-NOT: pooling_nchw
func.func @pooling(%x: tensor<1x3x6x6xf32>, %w: tensor<5x3x1x1xf32>, %acc: tensor<1x5x6x6xf32>) -> tensor<1x5x2x1xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x6x6xf32>, tensor<5x3x1x1xf32>) outs(%acc : tensor<1x5x6x6xf32>) -> tensor<1x5x6x6xf32>
  %s = tensor.extract_slice %c[0, 0, 1, 2] [1, 5, 3, 2] [1, 1, 2, 1] : tensor<1x5x6x6xf32> to tensor<1x5x3x2xf32>
  %lowest = arith.constant -3.4e38 : f32
  %e = tensor.empty() : tensor<1x5x2x1xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<1x5x2x1xf32>) -> tensor<1x5x2x1xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %p = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%s, %window : tensor<1x5x3x2xf32>, tensor<2x2xf32>) outs(%init : tensor<1x5x2x1xf32>) -> tensor<1x5x2x1xf32>
  return %p : tensor<1x5x2x1xf32>
}

// -----

// A filter computed at run time is transposed in the program. An
// element-wise op that reads an NCHW tensor in full besides the
// convolution's output keeps NCHW, the transpose before it.
// CHECK-LABEL: func.func @kept_nchw
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x4x4xf32>, %[[W:.*]]: tensor<2x3x1x1xf32>, %[[ACC:.*]]: tensor<1x2x4x4xf32>, %[[Y:.*]]: tensor<1x2x4x4xf32>)
// CHECK: %[[WT:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<2x3x1x1xf32>) outs(%{{.*}} : tensor<1x1x3x2xf32>)
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %[[WT]] : tensor<1x4x4x3xf32>, tensor<1x1x3x2xf32>)
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<1x4x4x2xf32>) outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[T]], %[[Y]] : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%{{.*}} : tensor<1x2x4x4xf32>)
#id = affine_map<(a, b, c, d) -> (a, b, c, d)>
func.func @kept_nchw(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %acc: tensor<1x2x4x4xf32>, %y: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) outs(%acc : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %y : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  return %sum : tensor<1x2x4x4xf32>
}

// -----

// A function with a grouped convolution, which has no NHWC kernel, stays
// NCHW.
// CHECK-LABEL: func.func @grouped
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK-NOT: nhwc
func.func @grouped(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>, %acc: tensor<1x4x4x4xf32>,
                   %g: tensor<1x2x2x4x4xf32>, %gw: tensor<2x2x2x1x1xf32>, %gacc: tensor<1x2x2x4x4xf32>)
    -> (tensor<1x4x4x4xf32>, tensor<1x2x2x4x4xf32>) {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) outs(%acc : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %gc = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%g, %gw : tensor<1x2x2x4x4xf32>, tensor<2x2x2x1x1xf32>) outs(%gacc : tensor<1x2x2x4x4xf32>) -> tensor<1x2x2x4x4xf32>
  return %c, %gc : tensor<1x4x4x4xf32>, tensor<1x2x2x4x4xf32>
}

// -----

// An element-wise op that reads its loops' indices keeps its loop order:
// the transpose stays before it.
// CHECK-LABEL: func.func @indices
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<1x4x4x2xf32>) outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[T]] : tensor<1x2x4x4xf32>) outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK: linalg.index 1
#id = affine_map<(a, b, c, d) -> (a, b, c, d)>
func.func @indices(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %acc: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) outs(%acc : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = arith.index_cast %i : index to i32
    %f = arith.sitofp %j : i32 to f32
    %s = arith.addf %in, %f : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

// A depthwise convolution (a channel a group) runs as
// depthwise_conv_2d_nhwc_hwc, its constant filter transposed to HWC; the
// unit group dimension's reshapes fold away.
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[\[}}0.000000e+00, 9.000000e+00], [1.000000e+00, 1.000000e+01], [2.000000e+00, 1.100000e+01]]
// CHECK-SAME: tensor<3x3x2xf32>
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%{{.*}}, %[[W]] : tensor<1x6x6x2xf32>, tensor<3x3x2xf32>) outs(%{{.*}} : tensor<1x4x4x2xf32>)
// CHECK-NOT: ngchw
func.func @depthwise(%x: tensor<1x2x6x6xf32>, %acc: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense<[[[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]],
                             [[[9.0, 10.0, 11.0], [12.0, 13.0, 14.0], [15.0, 16.0, 17.0]]]]> : tensor<2x1x3x3xf32>
  %xe = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 6, 6] : tensor<1x2x6x6xf32> into tensor<1x2x1x6x6xf32>
  %we = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 1, 1, 3, 3] : tensor<2x1x3x3xf32> into tensor<2x1x1x3x3xf32>
  %ae = tensor.expand_shape %acc [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 4, 4] : tensor<1x2x4x4xf32> into tensor<1x2x1x4x4xf32>
  %c = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xe, %we : tensor<1x2x1x6x6xf32>, tensor<2x1x1x3x3xf32>) outs(%ae : tensor<1x2x1x4x4xf32>) -> tensor<1x2x1x4x4xf32>
  %r = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : tensor<1x2x1x4x4xf32> into tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

// Transposes of tensors of dynamic shape stay where they are: the slice of
// a dynamic tensor is not transposed above.
// CHECK-LABEL: func.func @dynamic_source
// CHECK: %[[S:.*]] = tensor.extract_slice %{{.*}} : tensor<?x3x8x8xf32> to tensor<1x3x8x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<1x3x8x8xf32>) outs(%{{.*}} : tensor<1x8x8x3xf32>)
// CHECK: linalg.conv_2d_nhwc_hwcf
func.func @dynamic_source(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %acc: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %s = tensor.extract_slice %x[0, 0, 0, 0] [1, 3, 8, 8] [1, 1, 1, 1] : tensor<?x3x8x8xf32> to tensor<1x3x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%s, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%acc : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %c : tensor<1x4x6x6xf32>
}

// -----

// A depthwise convolution this pass does not convert (f16) keeps its
// function NCHW, as a grouped one does: it would sit between transposes.
// CHECK-LABEL: func.func @depthwise_f16
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK-NOT: nhwc
func.func @depthwise_f16(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>, %acc: tensor<1x4x4x4xf32>,
                         %g: tensor<1x4x1x6x6xf16>, %gw: tensor<4x1x1x3x3xf16>, %gacc: tensor<1x4x1x4x4xf16>)
    -> (tensor<1x4x4x4xf32>, tensor<1x4x1x4x4xf16>) {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) outs(%acc : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %gc = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%g, %gw : tensor<1x4x1x6x6xf16>, tensor<4x1x1x3x3xf16>) outs(%gacc : tensor<1x4x1x4x4xf16>) -> tensor<1x4x1x4x4xf16>
  return %c, %gc : tensor<1x4x4x4xf32>, tensor<1x4x1x4x4xf16>
}
