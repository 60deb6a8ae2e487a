// Each layer op lowers to the upstream ops named in the pass description.
// RUN: qdq-opt %s --convert-quant-qdq-to-linalg --split-input-file | FileCheck %s

// The windows of stride 2 read 9 of the 10 padded rows and columns: the
// input is cut to them (IREE's rewrite of 1x1-output convolutions needs
// the input to be what the windows read).
// CHECK-LABEL: func.func @conv
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[S:.*]] = tensor.extract_slice %[[P]][0, 0, 0, 0] [1, 3, 9, 9] [1, 1, 1, 1] : tensor<1x3x10x10xf32> to tensor<1x3x9x9xf32>
// CHECK: %[[ACC:.*]] = linalg.broadcast ins(%arg2 : tensor<8xf32>) outs(%{{.*}} : tensor<1x8x4x4xf32>) dimensions = [0, 2, 3]
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[S]], %arg1 : tensor<1x3x9x9xf32>, tensor<8x3x3x3xf32>) outs(%[[ACC]] : tensor<1x8x4x4xf32>)
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %y = quant_qdq.conv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// A dynamic width is kept whole; the static height is still cut to the 9
// rows of 10 that the windows read.
// CHECK-LABEL: func.func @conv_dynamic_width
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.extract_slice %[[P]][0, 0, 0, 0] [1, 3, 9, %{{.*}}] [1, 1, 1, 1] : tensor<1x3x10x?xf32> to tensor<1x3x9x?xf32>
func.func @conv_dynamic_width(%x: tensor<1x3x8x?xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x4x?xf32> {
  %y = quant_qdq.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x?xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x?xf32>
  return %y : tensor<1x8x4x?xf32>
}

// -----

// Depthwise (and any grouped) NCHW convolution splits channels into groups.
// Its windows read the whole input: nothing is cut.
// CHECK-LABEL: func.func @depthwise
// CHECK-NOT: tensor.extract_slice
// CHECK: tensor.expand_shape %arg0 {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 4, 1, 8, 8]
// CHECK: tensor.expand_shape %arg1 {{\[\[}}0, 1], [2], [3], [4]] output_shape [4, 1, 1, 3, 3]
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x4x1x6x6xf32> into tensor<1x4x6x6xf32>
func.func @depthwise(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = quant_qdq.conv2d %x, %w {groups = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK-LABEL: func.func @conv_nhwc
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK-LABEL: func.func @depthwise_nhwc
// CHECK: linalg.depthwise_conv_2d_nhwc_hwcm {{.*}} -> tensor<1x6x6x4x2xf32>
func.func @conv_nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x6x6x8xf32> {
  %y = quant_qdq.conv2d %x, %w {layout = #quant_qdq<layout nhwc>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x6x6x8xf32>
  return %y : tensor<1x6x6x8xf32>
}
func.func @depthwise_nhwc(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x1x8xf32>) -> tensor<1x6x6x8xf32> {
  %y = quant_qdq.conv2d %x, %w {groups = 4 : i64, layout = #quant_qdq<layout nhwc>} : (tensor<1x8x8x4xf32>, tensor<3x3x1x8xf32>) -> tensor<1x6x6x8xf32>
  return %y : tensor<1x6x6x8xf32>
}

// -----

// Dense is a contraction over the last input dimension.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[WT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @dense
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[WT]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @dense(%x: tensor<2x16xf32>, %w: tensor<10x16xf32>) -> tensor<2x10xf32> {
  %y = quant_qdq.dense %x, %w {transpose_weight} : (tensor<2x16xf32>, tensor<10x16xf32>) -> tensor<2x10xf32>
  return %y : tensor<2x10xf32>
}

// -----

// Max pooling pads with -inf, including the extra row ceil_mode needs.
// CHECK-LABEL: func.func @max_pool
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
func.func @max_pool(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = quant_qdq.max_pool2d %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Average pooling divides window sums by the counts of a pooled mask.
// CHECK-LABEL: func.func @avg_pool
// CHECK: linalg.pooling_nchw_sum
// CHECK: linalg.pooling_nchw_sum {{.*}} -> tensor<1x1x4x4xf32>
// CHECK: arith.divf
func.func @avg_pool(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %y = quant_qdq.avg_pool2d %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @global_avg_pool
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: arith.constant 1.600000e+01 : f32
// CHECK: tensor.expand_shape {{.*}} into tensor<1x8x1x1xf32>
func.func @global_avg_pool(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32> {
  %y = quant_qdq.global_avg_pool2d %x : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  return %y : tensor<1x8x1x1xf32>
}

// -----

// NumPy broadcasting reads size-1 dimensions at index 0.
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[SE:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
// CHECK-LABEL: func.func @squeeze_excite
// CHECK: linalg.generic {indexing_maps = [#[[FULL]], #[[SE]], #[[FULL]]]
// CHECK: arith.mulf
func.func @squeeze_excite(%x: tensor<1x8x4x4xf32>, %s: tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %y = quant_qdq.multiply %x, %s : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// A dynamic batch takes its size from the input that has it.
// CHECK-LABEL: func.func @dynamic_add
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x8xf32>
// CHECK: tensor.empty(%[[N]]) : tensor<?x8xf32>
func.func @dynamic_add(%x: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %y = quant_qdq.add %x, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @activations
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: math.exp
// CHECK: math.erf
// CHECK: math.tanh
// CHECK: arith.constant 0.797884583
// CHECK: math.tanh
func.func @activations(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = quant_qdq.activation relu6 %x : tensor<4xf32>
  %b = quant_qdq.activation swish %a : tensor<4xf32>
  %c = quant_qdq.activation gelu %b : tensor<4xf32>
  %d = quant_qdq.activation tanh %c : tensor<4xf32>
  %e = quant_qdq.activation gelu_tanh %d : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @shapes
// CHECK: tensor.insert_slice %arg0 into %{{.*}}[0, 0] [2, 3] [1, 1]
// CHECK: tensor.insert_slice %arg1 into %{{.*}}[0, 3] [2, 5] [1, 1]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x8xf32>) outs(%{{.*}} : tensor<8x2xf32>) permutation = [1, 0]
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [4, 2, 2] : tensor<8x2xf32> into tensor<4x2x2xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<4x2x2xf32> into tensor<4x4xf32>
func.func @shapes(%x: tensor<2x3xf32>, %y: tensor<2x5xf32>) -> tensor<4x4xf32> {
  %c = quant_qdq.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %t = quant_qdq.transpose %c {perm = array<i64: 1, 0>} : (tensor<2x8xf32>) -> tensor<8x2xf32>
  %r = quant_qdq.reshape %t {shape = array<i64: 4, -1>} : (tensor<8x2xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// Reflect padding reads mirrored indices.
// CHECK-LABEL: func.func @reflect
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: arith.maxsi
// CHECK: tensor.extract %arg0
func.func @reflect(%x: tensor<4xf32>) -> tensor<8xf32> {
  %y = quant_qdq.pad %x {pads = array<i64: 2, 2>, mode = #quant_qdq<pad_mode reflect>} : (tensor<4xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @softmax_bn
// CHECK: math.rsqrt
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK-NOT: quant_qdq.
func.func @softmax_bn(%x: tensor<2x4xf32>, %p: tensor<4xf32>) -> tensor<2x4xf32> {
  %b = quant_qdq.batch_norm %x, %p, %p, %p, %p : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %d = quant_qdq.dropout %b : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = quant_qdq.softmax %d : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}

// -----

// Mean, centered values, variance, then one generic for the normalization,
// scale and bias.
// CHECK-LABEL: func.func @layer_norm
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.constant 8.0
// CHECK: arith.subf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: math.rsqrt
// CHECK: arith.addf
// CHECK: return
func.func @layer_norm(%x: tensor<2x3x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %y = quant_qdq.layer_norm "ln" %x scale %s bias %b : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// -----

// The sum of squares over the normalized dimensions, then one generic that
// divides it into the mean square, adds epsilon and scales.
// CHECK-LABEL: func.func @rms_norm
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
// CHECK: arith.constant 8.0
// CHECK: arith.divf
// CHECK: math.rsqrt
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: return
func.func @rms_norm(%x: tensor<2x3x8xf32>, %s: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %y = quant_qdq.rms_norm "rms" %x scale %s : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}
