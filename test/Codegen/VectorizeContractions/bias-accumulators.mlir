// A contraction whose output starts as a broadcast (a bias) starts each
// register tile's accumulator from the broadcast's source, read once per
// tile and broadcast over the tile's rows, and the broadcast goes; where
// something else reads the broadcast too, it stays and the tiles read it.
// RUN: qdq-opt %s --qdq-vectorize-contractions="rows=8 columns=16 depth=4 parallel=false" --split-input-file | FileCheck %s

// CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0) -> (0, d0)>
// CHECK-LABEL: func.func @bias
// CHECK-SAME: (%{{.*}}: tensor<16x8xf32>, %{{.*}}: tensor<8x32xf32>, %[[BIAS:.*]]: tensor<32xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<16x32xf32>
// CHECK: scf.for %[[N:[a-z0-9_]+]] = {{.*}} iter_args(%{{.*}} = %[[EMPTY]])
// CHECK: %[[ACC:.*]] = vector.transfer_read %[[BIAS]][%[[N]]], %{{.*}} {in_bounds = [true, true], permutation_map = #[[ROWS]]} : tensor<32xf32>, vector<8x16xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x16xf32>)
// CHECK-NOT: linalg.generic
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @bias(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %bias: tensor<32xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
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
  return %r : tensor<16x32xf32>
}

// -----

// CHECK-LABEL: func.func @shared
// CHECK: %[[B:.*]] = linalg.generic
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[B]])
// CHECK: return
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @shared(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %bias: tensor<32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  %e = tensor.empty() : tensor<16x32xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
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
  return %r, %init : tensor<16x32xf32>, tensor<16x32xf32>
}

// -----

// A product with no bias starts from a fill (MatMul's zeros): each tile
// starts from the fill's value as a vector, and the fill, a pass that
// writes the whole output before the tiles read it back, goes.
// CHECK-LABEL: func.func @fill
// CHECK: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<8x16xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<16x32xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[EMPTY]])
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZEROS]]) -> (vector<8x16xf32>)
// CHECK-NOT: linalg.fill
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @fill(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>) -> tensor<16x32xf32> {
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
  return %r : tensor<16x32xf32>
}

// -----

// The same through a reshape of the fill (packed panels) and with a value
// only known at run time.
// CHECK-LABEL: func.func @reshaped_fill
// CHECK-SAME: %[[START:[a-z0-9_]+]]: f32)
// CHECK: %[[ACC:.*]] = vector.broadcast %[[START]] : f32 to vector<8x1x16xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x1x16xf32>)
// CHECK-NOT: linalg.fill
#lhs = affine_map<(m, p, n, k) -> (m, k)>
#rhs = affine_map<(m, p, n, k) -> (p, k, n)>
#out = affine_map<(m, p, n, k) -> (m, p, n)>
func.func @reshaped_fill(%a: tensor<16x8xf32>, %b: tensor<2x8x16xf32>, %start: f32) -> tensor<16x2x16xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%start : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %init = tensor.expand_shape %f [[0], [1, 2]] output_shape [16, 2, 16] : tensor<16x32xf32> into tensor<16x2x16xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x8xf32>, tensor<2x8x16xf32>) outs(%init : tensor<16x2x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x2x16xf32>
  return %r : tensor<16x2x16xf32>
}

// -----

// The bias broadcast as a named linalg.broadcast (a dense layer's bias
// before its epilogue) goes the same way.
// CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0) -> (0, d0)>
// CHECK-LABEL: func.func @named_broadcast
// CHECK-SAME: %[[BIAS:[a-z0-9_]+]]: tensor<32xf32>)
// CHECK: vector.transfer_read %[[BIAS]][%{{.*}}], %{{.*}} {in_bounds = [true, true], permutation_map = #[[ROWS]]} : tensor<32xf32>, vector<8x16xf32>
// CHECK-NOT: linalg.broadcast
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @named_broadcast(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %bias: tensor<32xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %init = linalg.broadcast ins(%bias : tensor<32xf32>) outs(%e : tensor<16x32xf32>) dimensions = [0]
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%init : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// A fill written as a linalg.generic with no input (a zero bias folded
// away) goes too; one whose body computes its value from the index does
// not.
// CHECK-LABEL: func.func @generic_fill
// CHECK: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<8x16xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZEROS]]) -> (vector<8x16xf32>)
// CHECK-NOT: linalg.generic
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @generic_fill(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<16x32xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%init : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// CHECK-LABEL: func.func @generic_of_index
// CHECK: linalg.generic
// CHECK: linalg.index
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @generic_of_index(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<16x32xf32>) {
  ^bb0(%o: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %v = arith.sitofp %ji : i32 to f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%init : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
