// A direct convolution (an image read at window indices oh + kh, ow + kw)
// is a contraction too: register tiles of output pixels (m: ow) by output
// channels (n: f) whose accumulator stays in registers across the window's
// loops and the input channels (k: c), each tile reading its image slice
// in place. A row of 14 pixels takes two tiles of 7 rows, not one of 8
// and one of 6. At a stride, a tile reads every other pixel of its slice
// through a strided slice of it (a view).
// RUN: qdq-opt %s --qdq-vectorize-contractions="rows=8 columns=16 depth=4 parallel=false" | FileCheck %s

// CHECK-LABEL: func.func @direct_convolution
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x16x8xf32>, %[[W:.*]]: tensor<3x3x8x16xf32>
// CHECK: scf.for %[[OH:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[OW:[a-z0-9_]+]] = %c0 to %c14 step %c7
// CHECK: %[[ACC:.*]] = vector.transfer_read {{.*}} vector<7x16xf32>
// CHECK: scf.for %[[KH:[a-z0-9_]+]] = {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<7x16xf32>)
// CHECK: scf.for %[[KW:[a-z0-9_]+]] = {{.*}} -> (vector<7x16xf32>)
// CHECK: scf.for %[[C:[a-z0-9_]+]] = {{.*}} -> (vector<7x16xf32>)
// CHECK-DAG: %[[ROW:.*]] = affine.apply #{{.*}}(%[[OH]], %[[KH]])
// CHECK-DAG: %[[COL:.*]] = affine.apply #{{.*}}(%[[OW]], %[[KW]])
// CHECK: tensor.extract_slice %[[X]][0, %[[ROW]], %[[COL]], %[[C]]] [1, 1, 7, 4] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %[[W]][%[[KH]], %[[KW]], %[[C]], 0] [1, 1, 4, 16] [1, 1, 1, 1]
// CHECK: vector.contract {{.*}} : vector<7x4xf32>, vector<1x1x4x16xf32> into vector<7x16xf32>
// CHECK: vector.transfer_write {{.*}} : vector<7x16xf32>
// CHECK-NOT: vector<8x16xf32>
// CHECK-NOT: linalg.generic
#image = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#filter = affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>
#out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
func.func @direct_convolution(%x: tensor<1x4x16x8xf32>, %w: tensor<3x3x8x16xf32>,
                              %acc: tensor<1x2x14x16xf32>) -> tensor<1x2x14x16xf32> {
  %r = linalg.generic {indexing_maps = [#image, #filter, #out],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x4x16x8xf32>, tensor<3x3x8x16xf32>)
      outs(%acc : tensor<1x2x14x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x2x14x16xf32>
  return %r : tensor<1x2x14x16xf32>
}

// CHECK-LABEL: func.func @strided_direct_convolution
// CHECK-SAME: (%[[X:.*]]: tensor<1x5x17x8xf32>, %[[W:.*]]: tensor<3x3x8x16xf32>
// CHECK: scf.for %[[OH:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step
// CHECK: %[[ACC:.*]] = vector.transfer_read {{.*}} vector<8x16xf32>
// CHECK: scf.for %[[KH:[a-z0-9_]+]] = {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x16xf32>)
// CHECK: scf.for %[[KW:[a-z0-9_]+]] = {{.*}} -> (vector<8x16xf32>)
// CHECK: scf.for %[[C:[a-z0-9_]+]] = {{.*}} -> (vector<8x16xf32>)
// CHECK: %[[ROW:.*]] = affine.apply #{{.*}}(%[[OH]], %[[KH]])
// CHECK: %[[WINDOW:.*]] = tensor.extract_slice %[[X]][0, %[[ROW]], %[[KW]], %[[C]]] [1, 1, 15, 4] [1, 1, 1, 1]
// CHECK: %[[PIXELS:.*]] = tensor.extract_slice %[[WINDOW]][0, 0, 0, 0] [1, 1, 8, 4] [1, 2, 2, 1]
// CHECK: vector.transfer_read %[[PIXELS]]{{.*}} vector<8x4xf32>
// CHECK: vector.contract {{.*}} : vector<8x4xf32>, vector<1x1x4x16xf32> into vector<8x16xf32>
// CHECK: vector.transfer_write {{.*}} : vector<8x16xf32>
// CHECK-NOT: linalg.generic
#image2 = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, c)>
func.func @strided_direct_convolution(%x: tensor<1x5x17x8xf32>, %w: tensor<3x3x8x16xf32>,
                                      %acc: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %r = linalg.generic {indexing_maps = [#image2, #filter, #out],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x5x17x8xf32>, tensor<3x3x8x16xf32>)
      outs(%acc : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x2x8x16xf32>
  return %r : tensor<1x2x8x16xf32>
}
