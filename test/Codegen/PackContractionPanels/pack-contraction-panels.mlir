// The right operand of f32 contractions is stored as column panels,
// [..., N / columns, K, columns], and the contraction iterates the panel
// and the column within it, its output seen through a view: constants are
// packed by the pass, other operands by a transpose when enough rows reuse
// them; columns that do not fill a panel are split off as they are.
// RUN: qdq-opt %s --qdq-pack-contraction-panels="columns=4" --split-input-file | FileCheck %s
// A panel without columns is refused, with exit status 1.
// RUN: not qdq-opt %s --qdq-pack-contraction-panels="columns=0" --split-input-file 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: columns must be positive, got 0

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// A constant is packed at compile time: panel 0 holds columns 0-3 of both
// rows of k, panel 1 columns 4-7.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
// CHECK-DAG: #[[PANELS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @constant
// CHECK-SAME: (%[[A:.*]]: tensor<3x2xf32>, %[[C:.*]]: tensor<3x8xf32>)
// CHECK: %[[P:.*]] = arith.constant dense<{{\[}}{{\[}}[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], {{\[}}[4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01]]]> : tensor<2x2x4xf32>
// CHECK: %[[CP:.*]] = tensor.expand_shape %[[C]] {{\[}}[0], [1, 2]] output_shape [3, 2, 4]
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[LHS]], #[[PANELS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[P]] : tensor<3x2xf32>, tensor<2x2x4xf32>) outs(%[[CP]] : tensor<3x2x4xf32>)
// CHECK: tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2]] : tensor<3x2x4xf32> into tensor<3x8xf32>
func.func @constant(%a: tensor<3x2xf32>, %c: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %b = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
                             [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]]>
      : tensor<2x8xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3x2xf32>, tensor<2x8xf32>)
      outs(%c : tensor<3x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x8xf32>
  return %r : tensor<3x8xf32>
}

// -----

// Gemm's transB: a constant read as (n, k) packs the same way; the column
// past the last whole panel (5 = 4 + 1) stays a contraction of its own, on
// a panel of its own width packed here too (read as it lies, (n, k), its
// tiles would need a transpose at every run).
// CHECK-LABEL: func.func @transposed_constant_with_rest
// CHECK-DAG: %[[P:.*]] = arith.constant dense<{{\[}}{{\[}}[0.000000e+00, 2.000000e+00, 4.000000e+00, 6.000000e+00], [1.000000e+00, 3.000000e+00, 5.000000e+00, 7.000000e+00]]]> : tensor<1x2x4xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<3x2xf32>, tensor<1x2x4xf32>)
// CHECK: %[[REST:.*]] = arith.constant dense<{{\[}}{{\[}}[8.000000e+00], [9.000000e+00]]]> : tensor<1x2x1xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[REST]] : tensor<3x2xf32>, tensor<1x2x1xf32>)
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhsT = affine_map<(m, n, k) -> (n, k)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @transposed_constant_with_rest(%a: tensor<3x2xf32>,
                                         %c: tensor<3x5xf32>)
    -> tensor<3x5xf32> {
  %b = arith.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0],
                             [8.0, 9.0]]> : tensor<5x2xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhsT, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3x2xf32>, tensor<5x2xf32>)
      outs(%c : tensor<3x5xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// -----

// Six columns, a panel and a half: one panel as wide (a MobileNet's 24
// channels for panels of 16), no remainder.
// CHECK-LABEL: func.func @one_odd_panel
// CHECK: %[[P:.*]] = arith.constant dense<{{\[}}{{\[}}[0.000000e+00, 2.000000e+00, 4.000000e+00, 6.000000e+00, 8.000000e+00, 1.000000e+01], [1.000000e+00, 3.000000e+00, 5.000000e+00, 7.000000e+00, 9.000000e+00, 1.100000e+01]]]> : tensor<1x2x6xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<3x2xf32>, tensor<1x2x6xf32>)
// CHECK-NOT: linalg.generic
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhsT = affine_map<(m, n, k) -> (n, k)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @one_odd_panel(%a: tensor<3x2xf32>, %c: tensor<3x6xf32>)
    -> tensor<3x6xf32> {
  %b = arith.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0],
                             [8.0, 9.0], [10.0, 11.0]]> : tensor<6x2xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhsT, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3x2xf32>, tensor<6x2xf32>)
      outs(%c : tensor<3x6xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x6xf32>
  return %r : tensor<3x6xf32>
}

// -----

// A weight reshaped on its way in (a dense layer's [n, k] weight with a unit
// batch dimension added, as ViT's attention output projection reads it) is
// still a constant: packed here, once, not by a transpose on every run.
// CHECK-LABEL: func.func @reshaped_constant
// CHECK: %[[P:.*]] = arith.constant dense<{{\[}}{{\[}}{{\[}}[0.000000e+00, 2.000000e+00, 4.000000e+00, 6.000000e+00], [1.000000e+00, 3.000000e+00, 5.000000e+00, 7.000000e+00]]]]> : tensor<1x1x2x4xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<3x2xf32>, tensor<1x1x2x4xf32>)
#lhs_r = affine_map<(b, m, n, k) -> (m, k)>
#rhs_r = affine_map<(b, m, n, k) -> (b, n, k)>
#out_r = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @reshaped_constant(%a: tensor<3x2xf32>, %c: tensor<1x3x4xf32>)
    -> tensor<1x3x4xf32> {
  %w = arith.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]> : tensor<4x2xf32>
  %b = tensor.expand_shape %w [[0, 1], [2]] output_shape [1, 4, 2] : tensor<4x2xf32> into tensor<1x4x2xf32>
  %r = linalg.generic {indexing_maps = [#lhs_r, #rhs_r, #out_r],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3x2xf32>, tensor<1x4x2xf32>)
      outs(%c : tensor<1x3x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x3x4xf32>
  return %r : tensor<1x3x4xf32>
}

// -----

// An operand computed by the program is packed by a view and a transpose
// when 16 rows or more reuse it; heads lead the panels.
// CHECK-LABEL: func.func @batched_activations
// CHECK-SAME: (%[[Q:.*]]: tensor<2x16x3xf32>, %[[K:.*]]: tensor<2x3x8xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[K]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 2, 4]
// CHECK: %[[P:.*]] = linalg.transpose ins(%[[E]] : tensor<2x3x2x4xf32>) outs(%{{.*}} : tensor<2x2x3x4xf32>) permutation = [0, 2, 1, 3]
// CHECK: linalg.generic {{.*}} ins(%[[Q]], %[[P]] : tensor<2x16x3xf32>, tensor<2x2x3x4xf32>)
func.func @batched_activations(%q: tensor<2x16x3xf32>, %k: tensor<2x3x8xf32>,
                               %c: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %r = linalg.batch_matmul ins(%q, %k : tensor<2x16x3xf32>, tensor<2x3x8xf32>)
                           outs(%c : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  return %r : tensor<2x16x8xf32>
}

// -----

// Fewer than 16 rows do not repay the copy of an operand the program
// computes; a right operand that is one panel already needs none.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: linalg.transpose
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: linalg.generic
func.func @left_alone(%a: tensor<3x2xf32>, %b: tensor<2x8xf32>,
                      %c: tensor<3x8xf32>, %d: tensor<20x2xf32>,
                      %e: tensor<2x4xf32>, %f: tensor<20x4xf32>)
    -> (tensor<3x8xf32>, tensor<20x4xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<3x2xf32>, tensor<2x8xf32>)
                     outs(%c : tensor<3x8xf32>) -> tensor<3x8xf32>
  %s = linalg.matmul ins(%d, %e : tensor<20x2xf32>, tensor<2x4xf32>)
                     outs(%f : tensor<20x4xf32>) -> tensor<20x4xf32>
  return %r, %s : tensor<3x8xf32>, tensor<20x4xf32>
}

// -----

// A direct convolution's filter (kh, kw, c, f) is packed with each panel's
// window and channels together: [f / columns, kh, kw, c, columns], so that
// a tile reads its panel from one contiguous block.
#image = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#filter = affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>
#out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
// CHECK-LABEL: func.func @direct_convolution
// CHECK: %[[P:.*]] = arith.constant dense<{{\[\[\[\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], {{\[\[}}1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.400000e+01, 2.500000e+01, 2.600000e+01, 2.700000e+01]]]], {{\[\[\[\[}}4.000000e+00, {{.*}}> : tensor<2x1x2x2x4xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<1x3x3x2xf32>, tensor<2x1x2x2x4xf32>)
func.func @direct_convolution(%x: tensor<1x3x3x2xf32>,
                              %acc: tensor<1x3x2x8xf32>) -> tensor<1x3x2x8xf32> {
  %w = arith.constant dense<[[[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
                               [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]],
                              [[16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0],
                               [24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]]]]> : tensor<1x2x2x8xf32>
  %r = linalg.generic {indexing_maps = [#image, #filter, #out],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x3x3x2xf32>, tensor<1x2x2x8xf32>)
      outs(%acc : tensor<1x3x2x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x3x2x8xf32>
  return %r : tensor<1x3x2x8xf32>
}

// -----

// A constant read as (k, n): the rest's rows are contiguous already, and
// it stays a slice of the constant, with no copy.
// CHECK-LABEL: func.func @constant_with_rest
// CHECK-DAG: %[[B:.*]] = arith.constant dense<{{.*}}> : tensor<2x5xf32>
// CHECK: linalg.generic {{.*}} tensor<1x2x4xf32>
// CHECK: %[[REST:.*]] = tensor.extract_slice %[[B]][0, 4] [2, 1] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[REST]] : tensor<3x2xf32>, tensor<2x1xf32>)
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @constant_with_rest(%a: tensor<3x2xf32>, %c: tensor<3x5xf32>)
    -> tensor<3x5xf32> {
  %b = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0],
                             [5.0, 6.0, 7.0, 8.0, 9.0]]> : tensor<2x5xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3x2xf32>, tensor<2x5xf32>)
      outs(%c : tensor<3x5xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}
