// With `wide-columns`, a contraction whose n has exactly that many columns
// (a wide panel of qdq-pack-contraction-panels) gets tiles as wide; any
// other keeps `columns`.
// RUN: qdq-opt %s --qdq-vectorize-contractions="rows=8 wide-columns=32 parallel=false" --split-input-file | FileCheck %s
// Tiles without rows, columns or depth, and negative wide-columns, are
// refused with exit status 1 (the pipeline's tile-rows=0 used to divide by
// zero).
// RUN: not qdq-opt %s --qdq-vectorize-contractions="rows=0" --split-input-file 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not qdq-opt %s --qdq-vectorize-contractions="wide-columns=-32" --split-input-file 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not qdq-opt %s --qdq-cpu-pipeline="tile-rows=0" --split-input-file 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: qdq-vectorize-contractions: rows, columns and depth must be positive and wide-columns 0 or more, got 0, 16, 4 and 0
// NEGATIVE: error: qdq-vectorize-contractions: rows, columns and depth must be positive and wide-columns 0 or more, got 6, 16, 4 and -32

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @wide_panel
// CHECK: vector.contract {{.*}} : vector<8x4xf32>, vector<4x32xf32> into vector<8x32xf32>
// CHECK-NOT: vector.contract
func.func @wide_panel(%a: tensor<8x8xf32>, %b: tensor<8x32xf32>,
                      %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x8xf32>, tensor<8x32xf32>)
      outs(%c : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @other_width
// CHECK: scf.for %{{.*}} = %c0 to %c48 step %c16
// CHECK: vector.contract {{.*}} : vector<8x4xf32>, vector<4x16xf32> into vector<8x16xf32>
func.func @other_width(%a: tensor<8x8xf32>, %b: tensor<8x48xf32>,
                       %c: tensor<8x48xf32>) -> tensor<8x48xf32> {
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x8xf32>, tensor<8x48xf32>)
      outs(%c : tensor<8x48xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x48xf32>
  return %r : tensor<8x48xf32>
}
