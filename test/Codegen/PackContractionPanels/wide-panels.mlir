// With `wide-columns`, a contraction with at least 8 times that many
// columns, or a whole number of such panels (a convolution's output
// channels, an attention head's 32 features), gets panels that wide;
// another keeps `columns`.
// RUN: qdq-opt %s --qdq-pack-contraction-panels="columns=4 wide-columns=8 min-rows=1" --split-input-file | FileCheck %s
// RUN: not qdq-opt %s --qdq-pack-contraction-panels="wide-columns=-1" --split-input-file 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: wide-columns must be 0 or more, got -1

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @wide
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<8x2x8xf32>) outs(%{{.*}} : tensor<3x8x8xf32>)
func.func @wide(%a: tensor<3x2xf32>, %b: tensor<2x64xf32>,
                %c: tensor<3x64xf32>) -> tensor<3x64xf32> {
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3x2xf32>, tensor<2x64xf32>)
      outs(%c : tensor<3x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x64xf32>
  return %r : tensor<3x64xf32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @narrow
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<15x2x4xf32>) outs(%{{.*}} : tensor<3x15x4xf32>)
func.func @narrow(%a: tensor<3x2xf32>, %b: tensor<2x60xf32>,
                  %c: tensor<3x60xf32>) -> tensor<3x60xf32> {
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3x2xf32>, tensor<2x60xf32>)
      outs(%c : tensor<3x60xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x60xf32>
  return %r : tensor<3x60xf32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @whole_panels
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<3x2x8xf32>) outs(%{{.*}} : tensor<3x3x8xf32>)
func.func @whole_panels(%a: tensor<3x2xf32>, %b: tensor<2x24xf32>,
                  %c: tensor<3x24xf32>) -> tensor<3x24xf32> {
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3x2xf32>, tensor<2x24xf32>)
      outs(%c : tensor<3x24xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x24xf32>
  return %r : tensor<3x24xf32>
}

// -----

// Each head's projection has one wide panel's columns: one wide panel a
// head, not two narrow ones.
#lhs = affine_map<(m, h, n, k) -> (m, k)>
#rhs = affine_map<(m, h, n, k) -> (k, h, n)>
#out = affine_map<(m, h, n, k) -> (m, h, n)>
// CHECK-LABEL: func.func @head_panels
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<4x1x2x8xf32>) outs(%{{.*}} : tensor<3x4x1x8xf32>)
func.func @head_panels(%a: tensor<3x2xf32>, %b: tensor<2x4x8xf32>,
                       %c: tensor<3x4x8xf32>) -> tensor<3x4x8xf32> {
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3x2xf32>, tensor<2x4x8xf32>)
      outs(%c : tensor<3x4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x4x8xf32>
  return %r : tensor<3x4x8xf32>
}
