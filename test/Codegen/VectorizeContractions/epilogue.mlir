// An element-wise op that is the only reader of a contraction's result,
// read as it is laid out (an activation, a residual sum), is applied by
// each register tile to its accumulator before the tile stores: the
// contraction's output is never written, and the op is gone.
// RUN: qdq-opt %s --qdq-vectorize-contractions="rows=8 columns=16 depth=4 parallel=false" --split-input-file | FileCheck %s
// RUN: qdq-opt %s --qdq-vectorize-contractions="rows=8 columns=16 depth=4 threads=2" --split-input-file | FileCheck %s --check-prefix=THREADS

// CHECK-LABEL: func.func @relu
// CHECK-SAME: (%{{.*}}: tensor<16x8xf32>, %{{.*}}: tensor<8x32xf32>, %[[BIAS:.*]]: tensor<32xf32>)
// CHECK-NOT: linalg.generic
// CHECK: scf.for %[[N:[a-z0-9_]+]] =
// CHECK: scf.for %[[M:[a-z0-9_]+]] =
// CHECK: %[[ACC:.*]] = vector.transfer_read %[[BIAS]][%[[N]]]
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x16xf32>)
// CHECK: %[[RELU:.*]] = arith.maximumf %[[SUM]], %{{.*}} : vector<8x16xf32>
// CHECK: vector.transfer_write %[[RELU]]
// CHECK-NOT: linalg.generic
// THREADS-LABEL: func.func @relu
// THREADS: scf.forall
// THREADS: arith.maximumf %{{.*}} : vector<8x16xf32>
// THREADS-NOT: linalg.generic
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @relu(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %bias: tensor<32xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%init : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<16x32xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<16x32xf32>) outs(%e2 : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<16x32xf32>
  return %relu : tensor<16x32xf32>
}

// -----

// A residual sum on a map whose tiles do not divide it (20 rows: two of 8
// and a peeled one of 4; 40 columns: two of 16 and one of 8, split off
// before the threads share the rest): every tile adds its part of the
// residual.
// CHECK-LABEL: func.func @residual
// CHECK-COUNT-4: arith.addf %{{.*}} : vector<{{[48]}}x{{8|16}}xf32>
// CHECK-NOT: linalg.generic
// THREADS-LABEL: func.func @residual
// THREADS: scf.forall
// THREADS: arith.addf %{{.*}} : vector<8x16xf32>
// THREADS-NOT: linalg.generic
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @residual(%a: tensor<20x8xf32>, %b: tensor<8x40xf32>, %skip: tensor<20x40xf32>) -> tensor<20x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x40xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<20x40xf32>) -> tensor<20x40xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<20x8xf32>, tensor<8x40xf32>) outs(%init : tensor<20x40xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<20x40xf32>
  %e2 = tensor.empty() : tensor<20x40xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %skip : tensor<20x40xf32>, tensor<20x40xf32>) outs(%e2 : tensor<20x40xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<20x40xf32>
  return %sum : tensor<20x40xf32>
}

// -----

// A result read by something else too, or read transposed, keeps its
// element-wise op apart.
// CHECK-LABEL: func.func @not_epilogues
// THREADS-LABEL: func.func @not_epilogues
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<16x32xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<16x32xf32>)
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#t = affine_map<(i, j) -> (j, i)>
func.func @not_epilogues(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%init : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<16x32xf32>
  %r2 = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%init : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  %et = tensor.empty() : tensor<32x16xf32>
  %relut = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r2 : tensor<16x32xf32>) outs(%et : tensor<32x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32x16xf32>
  return %relu, %r, %relut : tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x16xf32>
}

// -----

// A contraction on packed panels writes [m, n / 16, 16], which a
// collapse_shape folds back to [m, n]: the activation reading the
// collapse is rewritten to read the panels' shape, and becomes the
// epilogue.
// CHECK-LABEL: func.func @panels
// CHECK-NOT: linalg.generic
// CHECK: scf.for
// CHECK: %[[SUM:.*]] = scf.for {{.*}} -> (vector<8x1x16xf32>)
// CHECK: arith.maximumf %[[SUM]], %{{.*}} : vector<8x1x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<16x2x16xf32> into tensor<16x32xf32>
#lhs = affine_map<(m, nb, k, n) -> (m, k)>
#rhs = affine_map<(m, nb, k, n) -> (nb, k, n)>
#out = affine_map<(m, nb, k, n) -> (m, nb, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @panels(%a: tensor<16x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x2x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x2x16xf32>) -> tensor<16x2x16xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<16x8xf32>, tensor<2x8x16xf32>) outs(%init : tensor<16x2x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x2x16xf32>
  %c = tensor.collapse_shape %r [[0], [1, 2]] : tensor<16x2x16xf32> into tensor<16x32xf32>
  %e2 = tensor.empty() : tensor<16x32xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<16x32xf32>) outs(%e2 : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<16x32xf32>
  return %relu : tensor<16x32xf32>
}
