// RUN: qdq-opt %s --split-input-file --qdq-collapse-loop-dims | FileCheck %s

// An element-wise op on whole buffers: one loop over every element.
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[X:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : memref<16x14x14xf32> into memref<3136xf32>
// CHECK-DAG: %[[Y:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1, 2]] : memref<16x14x14xf32> into memref<3136xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel"]} ins(%[[X]] : memref<3136xf32>) outs(%[[Y]] : memref<3136xf32>)
// CHECK:   arith.maximumf
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @elementwise(%x: memref<16x14x14xf32>, %y: memref<16x14x14xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<16x14x14xf32>) outs(%y : memref<16x14x14xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A bias broadcast into a chunk of channels: the channel stays a loop, the
// rows and columns of each channel become one.
// CHECK-LABEL: func.func @bias_into_chunk
// CHECK: %[[CHUNK:.*]] = memref.subview
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[CHUNK]] {{\[\[}}0], [1, 2]] : memref<16x14x14xf32, strided<[196, 14, 1], offset: ?>> into memref<16x196xf32, strided<[196, 1], offset: ?>>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%arg0 : memref<16xf32>) outs(%[[FLAT]] :
#bias = affine_map<(d0, d1, d2) -> (d0)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @bias_into_chunk(%bias: memref<16xf32>, %out: memref<256x14x14xf32>, %c: index) {
  %chunk = memref.subview %out[%c, 0, 0] [16, 14, 14] [1, 1, 1]
      : memref<256x14x14xf32> to memref<16x14x14xf32, strided<[196, 14, 1], offset: ?>>
  linalg.generic {indexing_maps = [#bias, #id],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bias : memref<16xf32>)
      outs(%chunk : memref<16x14x14xf32, strided<[196, 14, 1], offset: ?>>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  return
}

// -----

// The interior of a padded buffer: its rows are 16 apart, not 14, so the
// loops stay as they are.
// CHECK-LABEL: func.func @padded_interior
// CHECK-NOT: memref.collapse_shape
// CHECK: iterator_types = ["parallel", "parallel", "parallel"]
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @padded_interior(%x: memref<4x14x14xf32>, %padded: memref<4x16x16xf32>) {
  %interior = memref.subview %padded[0, 1, 1] [4, 14, 14] [1, 1, 1]
      : memref<4x16x16xf32> to memref<4x14x14xf32, strided<[256, 16, 1], offset: 17>>
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<4x14x14xf32>)
      outs(%interior : memref<4x14x14xf32, strided<[256, 16, 1], offset: 17>>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// Named ops become generics to collapse: a fill is one loop.
// CHECK-LABEL: func.func @fill
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<4x8xf32> into memref<32xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%{{.*}} : f32) outs(%[[FLAT]] : memref<32xf32>)
func.func @fill(%x: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%x : memref<4x8xf32>)
  return
}

// -----

// Only dims of one iterator type merge: the two parallel dims of a row sum
// become one, the reduction stays its own.
// CHECK-LABEL: func.func @row_sums
// CHECK: memref.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : memref<2x3x8xf32> into memref<6x8xf32>
// CHECK: memref.collapse_shape %arg1 {{\[\[}}0, 1]] : memref<2x3xf32> into memref<6xf32>
// CHECK: iterator_types = ["parallel", "reduction"]
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @row_sums(%x: memref<2x3x8xf32>, %y: memref<2x3xf32>) {
  linalg.generic {indexing_maps = [#in, #out],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<2x3x8xf32>) outs(%y : memref<2x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A transpose swaps the order of two dims in one map: they cannot merge,
// but the dims both operands keep in order can.
// CHECK-LABEL: func.func @transpose
// CHECK: memref.collapse_shape %arg0 {{\[\[}}0], [1], [2, 3]] : memref<2x3x4x5xf32> into memref<2x3x20xf32>
// CHECK: memref.collapse_shape %arg1 {{\[\[}}0], [1], [2, 3]] : memref<3x2x4x5xf32> into memref<3x2x20xf32>
// CHECK: iterator_types = ["parallel", "parallel", "parallel"]
func.func @transpose(%x: memref<2x3x4x5xf32>, %y: memref<3x2x4x5xf32>) {
  linalg.transpose ins(%x : memref<2x3x4x5xf32>)
      outs(%y : memref<3x2x4x5xf32>) permutation = [1, 0, 2, 3]
  return
}

// -----

// Windows (an output index plus a kernel offset) are not a permutation of
// the dims: such an op is left alone.
// CHECK-LABEL: func.func @windows
// CHECK-NOT: memref.collapse_shape
// CHECK: iterator_types = ["parallel", "parallel", "parallel"]
#window = affine_map<(d0, d1, d2) -> (d0, d1 + d2)>
#cols = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @windows(%x: memref<4x10xf32>, %y: memref<4x8x3xf32>) {
  linalg.generic {indexing_maps = [#window, #cols],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<4x10xf32>) outs(%y : memref<4x8x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// Ops on tensors are not this pass's concern.
// CHECK-LABEL: func.func @tensors
// CHECK-NOT: collapse_shape
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @tensors(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%x : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A body that reads its indices keeps its loops: merged, each index would
// cost a division per element.
// CHECK-LABEL: func.func @reads_indices
// CHECK-NOT: memref.collapse_shape
// CHECK: iterator_types = ["parallel", "parallel"]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @reads_indices(%y: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%y : memref<4x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i64
    %f = arith.sitofp %c : i64 to f32
    linalg.yield %f : f32
  }
  return
}
