// With `wide-columns`, a contraction whose n has exactly that many columns
// (a wide panel of qdq-pack-contraction-panels) gets tiles as wide; any
// other keeps `columns`.
// RUN: qdq-opt %s --qdq-vectorize-contractions="rows=8 wide-columns=32 parallel=false" --split-input-file | FileCheck %s

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
