// f32 contractions on static shapes become register tiles: loops over n
// (columns), m (rows) and k, the k loop carrying a rows x columns vector
// accumulator through vector.contracts of depth k, read from and written
// back to its slice of the output once; remainder tiles are peeled to static
// shapes. Other contractions are left alone.
// With `parallel` (the default), the parallel dimension that the threads
// share most evenly is an scf.forall first, with a second one where chunks
// of both share more evenly.
// RUN: qdq-opt %s --qdq-vectorize-contractions="parallel=false" --split-input-file | FileCheck %s
// RUN: qdq-opt %s --qdq-vectorize-contractions="rows=4 columns=8 depth=2 parallel=false" --split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: qdq-opt %s --qdq-vectorize-contractions --split-input-file | FileCheck %s --check-prefix=PAR
// RUN: qdq-opt %s --qdq-vectorize-contractions=threads=2 --split-input-file | FileCheck %s --check-prefix=TWO

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @even
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK:   scf.for %{{.*}} = %c0 to %c12 step %c6
// CHECK:     %[[TILE:.*]] = tensor.extract_slice %{{.*}} : tensor<12x32xf32> to tensor<6x16xf32>
// CHECK:     %[[ACC:.*]] = vector.transfer_read %[[TILE]]{{.*}} : tensor<6x16xf32>, vector<6x16xf32>
// CHECK:     %[[SUM:.*]] = scf.for {{.*}} = %c0 to %c8 step %c4 iter_args(%{{.*}} = %[[ACC]]) -> (vector<6x16xf32>)
// CHECK:       vector.contract {{.*}} : vector<6x4xf32>, vector<4x16xf32> into vector<6x16xf32>
// CHECK-NOT:   vector.contract
// CHECK:     %[[W:.*]] = vector.transfer_write %[[SUM]], %[[TILE]]{{.*}} : vector<6x16xf32>, tensor<6x16xf32>
// CHECK:     tensor.insert_slice %[[W]]
// CHECK-NOT: linalg.generic
// PAR-LABEL: func.func @even
// PAR: scf.forall (%[[M:.*]], %[[N:.*]]) = (0, 0) to (12, 32) step (6, 16) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<12x32xf32>)
// PAR:   vector.contract {{.*}} : vector<6x4xf32>, vector<4x16xf32> into vector<6x16xf32>
// PAR:   scf.forall.in_parallel
// PAR:     tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[M]], %[[N]]] [6, 16] [1, 1]
// SMALL-LABEL: func.func @even
// SMALL: vector.contract {{.*}} : vector<4x2xf32>, vector<2x8xf32> into vector<4x8xf32>
func.func @even(%a: tensor<12x8xf32>, %b: tensor<8x32xf32>,
                %c: tensor<12x32xf32>) -> tensor<12x32xf32> {
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<12x8xf32>, tensor<8x32xf32>)
      outs(%c : tensor<12x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<12x32xf32>
  return %r : tensor<12x32xf32>
}

// -----

// Remainders along m (7 = 6 + 1), n (20 = 16 + 4) and k (5 = 4 + 1) are
// tiles of their own, each static (a one-row tile drops its unit dimension).
// CHECK-LABEL: func.func @remainders
// CHECK-DAG: vector.contract {{.*}} : vector<6x4xf32>, vector<4x16xf32> into vector<6x16xf32>
// CHECK-DAG: vector.contract {{.*}} : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
// CHECK-DAG: vector.contract {{.*}} : vector<4xf32>, vector<4x16xf32> into vector<16xf32>
// CHECK-DAG: vector.contract {{.*}} : vector<6x4xf32>, vector<4x4xf32> into vector<6x4xf32>
// CHECK-DAG: vector.contract {{.*}} : vector<1xf32>, vector<1x4xf32> into vector<4xf32>
// CHECK-NOT: linalg.matmul
func.func @remainders(%a: tensor<7x5xf32>, %b: tensor<5x20xf32>,
                      %c: tensor<7x20xf32>) -> tensor<7x20xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<7x5xf32>, tensor<5x20xf32>)
                     outs(%c : tensor<7x20xf32>) -> tensor<7x20xf32>
  return %r : tensor<7x20xf32>
}

// -----

// A right operand indexed (n, k), as Gemm's transB, is transposed once so
// that its rows are contiguous along n.
// CHECK-LABEL: func.func @transposed_rhs
// CHECK: linalg.transpose ins(%{{.*}} : tensor<32x8xf32>) outs(%{{.*}} : tensor<8x32xf32>) permutation = [1, 0]
// CHECK: vector.contract {{.*}} : vector<6x4xf32>, vector<4x16xf32> into vector<6x16xf32>
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhsT = affine_map<(m, n, k) -> (n, k)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @transposed_rhs(%a: tensor<12x8xf32>, %b: tensor<32x8xf32>,
                          %c: tensor<12x32xf32>) -> tensor<12x32xf32> {
  %r = linalg.generic {indexing_maps = [#lhs, #rhsT, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<12x8xf32>, tensor<32x8xf32>)
      outs(%c : tensor<12x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<12x32xf32>
  return %r : tensor<12x32xf32>
}

// -----

// A batch dimension is one more loop outside the tiles, the one threads
// share out.
// PAR-LABEL: func.func @batched
// PAR: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (3, 32) step (1, 16)
// CHECK-LABEL: func.func @batched
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK:   scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK:     scf.for %{{.*}} = %c0 to %c12 step %c6
// CHECK:       vector.contract {{.*}} : vector<6x4xf32>, vector<4x16xf32> into vector<6x16xf32>
func.func @batched(%a: tensor<3x12x8xf32>, %b: tensor<3x8x32xf32>,
                   %c: tensor<3x12x32xf32>) -> tensor<3x12x32xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x12x8xf32>, tensor<3x8x32xf32>)
                           outs(%c : tensor<3x12x32xf32>) -> tensor<3x12x32xf32>
  return %r : tensor<3x12x32xf32>
}

// -----

// A [sequence, batch, features] activation (PyTorch's attention
// projections): the batch is the m dimension nearest the output's end, but
// the tiles' rows are the 12 of the sequence, 6 at a time: at batch 1 not
// one row at a time, at batch 3 not 3 rows at a time.
// CHECK-LABEL: func.func @unit_rows
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK:   scf.for %{{.*}} = %c0 to %c12 step %c6
// CHECK:     vector.contract {{.*}} : vector<6x1x4xf32>, vector<4x16xf32> into vector<6x1x16xf32>
// CHECK-NOT: vector.contract
// CHECK: return
#seq_in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#seq_w = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#seq_out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @unit_rows(%a: tensor<12x1x8xf32>, %b: tensor<8x32xf32>,
                     %c: tensor<12x1x32xf32>) -> tensor<12x1x32xf32> {
  %r = linalg.generic {indexing_maps = [#seq_in, #seq_w, #seq_out],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<12x1x8xf32>, tensor<8x32xf32>) outs(%c : tensor<12x1x32xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<12x1x32xf32>
  return %r : tensor<12x1x32xf32>
}
// CHECK-LABEL: func.func @short_rows
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK:   scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK:     scf.for %{{.*}} = %c0 to %c12 step %c6
// CHECK:       vector.contract {{.*}} : vector<6x1x4xf32>, vector<4x16xf32> into vector<6x1x16xf32>
// CHECK-NOT: vector.contract
// CHECK: return
func.func @short_rows(%a: tensor<12x3x8xf32>, %b: tensor<8x32xf32>,
                      %c: tensor<12x3x32xf32>) -> tensor<12x3x32xf32> {
  %r = linalg.generic {indexing_maps = [#seq_in, #seq_w, #seq_out],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<12x3x8xf32>, tensor<8x32xf32>) outs(%c : tensor<12x3x32xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<12x3x32xf32>
  return %r : tensor<12x3x32xf32>
}

// -----

// 40 columns are two whole 16-column panels for the threads; the last 8
// are split off and tiled sequentially. Too few rows and columns (below)
// for two tiles: no forall.
// PAR-LABEL: func.func @split
// PAR: %[[HEAD:.*]] = scf.forall (%{{.*}}) = (0) to (32) step (16)
// PAR:   vector.contract {{.*}} : vector<6x4xf32>, vector<4x16xf32> into vector<6x16xf32>
// PAR: vector.contract {{.*}} : vector<6x4xf32>, vector<4x8xf32> into vector<6x8xf32>
// PAR-LABEL: func.func @small
// PAR-NOT: scf.forall
// PAR: return
func.func @split(%a: tensor<6x8xf32>, %b: tensor<8x40xf32>,
                 %c: tensor<6x40xf32>) -> tensor<6x40xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<6x8xf32>, tensor<8x40xf32>)
                     outs(%c : tensor<6x40xf32>) -> tensor<6x40xf32>
  return %r : tensor<6x40xf32>
}
func.func @small(%a: tensor<11x8xf32>, %b: tensor<8x31xf32>,
                 %c: tensor<11x31xf32>) -> tensor<11x31xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<11x8xf32>, tensor<8x31xf32>)
                     outs(%c : tensor<11x31xf32>) -> tensor<11x31xf32>
  return %r : tensor<11x31xf32>
}

// -----

// A 7x7 convolution's 49 columns are 3 panels, which two threads would
// share unevenly; its 60 rows are 10 tiles: the rows are distributed, and
// each thread walks the 3 panels and the last column's remainder tile.
// PAR-LABEL: func.func @few_columns
// PAR: scf.forall (%{{.*}}) = (0) to (60) step (6)
// PAR:   vector.contract {{.*}} : vector<6x4xf32>, vector<4x16xf32> into vector<6x16xf32>
// PAR:   vector.contract {{.*}} : vector<6x4xf32>, vector<4x1xf32> into vector<6x1xf32>
// PAR: scf.forall.in_parallel
// PAR-NOT: scf.forall
// PAR: return
func.func @few_columns(%a: tensor<60x8xf32>, %b: tensor<8x49xf32>,
                       %c: tensor<60x49xf32>) -> tensor<60x49xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<60x8xf32>, tensor<8x49xf32>)
                     outs(%c : tensor<60x49xf32>) -> tensor<60x49xf32>
  return %r : tensor<60x49xf32>
}

// -----

// Dynamic shapes and integer contractions stay linalg ops.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: vector.contract
// CHECK: linalg.matmul ins(%{{.*}} : tensor<?x8xf32>, tensor<8x32xf32>)
// CHECK: linalg.matmul ins(%{{.*}} : tensor<12x8xi32>, tensor<8x32xi32>)
func.func @untouched(%a: tensor<?x8xf32>, %b: tensor<8x32xf32>,
                     %c: tensor<?x32xf32>, %ai: tensor<12x8xi32>,
                     %bi: tensor<8x32xi32>, %ci: tensor<12x32xi32>)
    -> (tensor<?x32xf32>, tensor<12x32xi32>) {
  %r = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x32xf32>)
                     outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  %ri = linalg.matmul ins(%ai, %bi : tensor<12x8xi32>, tensor<8x32xi32>)
                      outs(%ci : tensor<12x32xi32>) -> tensor<12x32xi32>
  return %r, %ri : tensor<?x32xf32>, tensor<12x32xi32>
}

// -----

// Two batches of 30 rows: 8 threads share the rows' 5 tiles best (a third
// of them idle), 2 threads the batches (the rows would split 3:2).
// PAR-LABEL: func.func @batch_or_rows
// PAR: scf.forall (%{{.*}}) = (0) to (30) step (6)
// TWO-LABEL: func.func @batch_or_rows
// TWO: scf.forall (%{{.*}}) in (2)
func.func @batch_or_rows(%a: tensor<2x30x8xf32>, %b: tensor<2x8x16xf32>,
                         %c: tensor<2x30x16xf32>) -> tensor<2x30x16xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x30x8xf32>, tensor<2x8x16xf32>)
                           outs(%c : tensor<2x30x16xf32>) -> tensor<2x30x16xf32>
  return %r : tensor<2x30x16xf32>
}

// -----

// Two samples multiplied by one weight (a dense layer on [batch, tokens,
// features]): 2 threads share the samples and the weight's two panels
// equally well, and take the panels, so that each thread reads half of the
// weight rather than all of it (BERT-like encoder at batch 8, in groups of
// 4 samples: 2-4% faster a run). The batch of attention's heads, which
// index the right operand too, stays the threads' choice (@batch_or_rows).
// TWO-LABEL: func.func @shared_weight
// TWO: scf.forall (%{{.*}}) = (0) to (32) step (16)
// TWO: scf.for %{{.*}} = %c0 to %c2 step %c1
#lhs_b = affine_map<(b, m, n, k) -> (b, m, k)>
#rhs_w = affine_map<(b, m, n, k) -> (k, n)>
#out_b = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @shared_weight(%a: tensor<2x12x8xf32>, %w: tensor<8x32xf32>,
                         %c: tensor<2x12x32xf32>) -> tensor<2x12x32xf32> {
  %r = linalg.generic {indexing_maps = [#lhs_b, #rhs_w, #out_b],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<2x12x8xf32>, tensor<8x32xf32>) outs(%c : tensor<2x12x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x12x32xf32>
  return %r : tensor<2x12x32xf32>
}

// -----

// Seven rows of 16-wide tiles in 5 panels: two threads share neither
// evenly (4 rows against 3, 3 panels against 2), both as 35 chunks (18
// against 17).
// TWO-LABEL: func.func @rows_by_panels
// TWO: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (7, 80) step (1, 16)
// TWO-NOT: scf.forall (
#lhs_7 = affine_map<(b, m, n, k) -> (b, m, k)>
#rhs_7 = affine_map<(b, m, n, k) -> (k, n)>
#out_7 = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @rows_by_panels(%a: tensor<7x7x8xf32>, %w: tensor<8x80xf32>,
                          %c: tensor<7x7x80xf32>) -> tensor<7x7x80xf32> {
  %r = linalg.generic {indexing_maps = [#lhs_7, #rhs_7, #out_7],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<7x7x8xf32>, tensor<8x80xf32>) outs(%c : tensor<7x7x80xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<7x7x80xf32>
  return %r : tensor<7x7x80xf32>
}
