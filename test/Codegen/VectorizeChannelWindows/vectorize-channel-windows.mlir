// NHWC depthwise convolutions and poolings on buffers become register
// tiles of output pixels by channel vectors: accumulators loaded once, a
// loop over the filter's rows carrying them, each input vector of a window
// row loaded once and added to every pixel whose window holds it (in tap
// order), a shorter tile for the pixels past the last whole one, fewer
// vectors for the channels past the last whole group.
// RUN: qdq-opt %s --qdq-vectorize-channel-windows="width=4 pixels=2 vectors=2" --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @depthwise
// CHECK-SAME: (%[[X:.*]]: memref<1x6x7x12xf32>, %[[W:.*]]: memref<3x3x12xf32>, %[[Y:.*]]: memref<1x4x5x12xf32>)
// CHECK: scf.for %[[ROW:[a-z0-9_]+]] =
// CHECK: scf.for %[[COL:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-COUNT-4: vector.load %[[Y]]
// CHECK: scf.for %[[KH:[a-z0-9_]+]] = {{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK: %[[IN_ROW:.*]] = arith.addi %[[ROW]], %[[KH]]
// CHECK-COUNT-6: vector.load %[[W]][%[[KH]]
// The second input column is the first pixel's second tap and the second
// pixel's first.
// CHECK: %[[C1:.*]] = arith.addi %[[COL]], %c1
// CHECK: %[[V1:.*]] = vector.load %[[X]][%{{.*}}, %[[IN_ROW]], %[[C1]], %{{.*}}]
// CHECK-NEXT: vector.fma %[[V1]]
// CHECK-NEXT: vector.fma %[[V1]]
// CHECK: scf.yield
// CHECK-COUNT-4: vector.store {{.*}}, %[[Y]]
// The fifth pixel: a tile of one; the last 4 channels: one vector.
// CHECK: scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>)
// CHECK: scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>)
// CHECK: scf.for {{.*}} -> (vector<4xf32>) {
// CHECK-NOT: linalg.
func.func @depthwise(%x: memref<1x6x7x12xf32>, %w: memref<3x3x12xf32>, %y: memref<1x4x5x12xf32>) {
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x6x7x12xf32>, memref<3x3x12xf32>) outs(%y : memref<1x4x5x12xf32>)
  return
}

// -----

// A max pooling as the distribution over threads leaves it: a generic,
// its window loops before the channels, at stride 2.
// CHECK-LABEL: func.func @max_pooling
// CHECK-SAME: (%[[X:.*]]: memref<1x5x5x8xf32, strided<[400, 80, 8, 1], offset: ?>>, %{{.*}}: memref<3x3xf32>, %[[Y:.*]]: memref<1x2x2x8xf32>)
// CHECK: scf.for %[[ROW:[a-z0-9_]+]] =
// CHECK: scf.for %[[KH:[a-z0-9_]+]] =
// CHECK: %[[R2:.*]] = arith.muli %[[ROW]], %c2
// CHECK-NEXT: %[[IN_ROW:.*]] = arith.addi %[[R2]], %[[KH]]
// CHECK: %[[V:.*]] = vector.load %[[X]][%{{.*}}, %[[IN_ROW]], %{{.*}}, %{{.*}}]
// CHECK: arith.maximumf %{{.*}}, %[[V]] : vector<4xf32>
// CHECK-NOT: linalg.
#in = affine_map<(n, oh, ow, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, c)>
#taps = affine_map<(n, oh, ow, kh, kw, c) -> (kh, kw)>
#out = affine_map<(n, oh, ow, kh, kw, c) -> (n, oh, ow, c)>
func.func @max_pooling(%x: memref<1x5x5x8xf32, strided<[400, 80, 8, 1], offset: ?>>, %window: memref<3x3xf32>, %y: memref<1x2x2x8xf32>) {
  linalg.generic {indexing_maps = [#in, #taps, #out],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %window : memref<1x5x5x8xf32, strided<[400, 80, 8, 1], offset: ?>>, memref<3x3xf32>) outs(%y : memref<1x2x2x8xf32>) {
  ^bb0(%in: f32, %t: f32, %o: f32):
    %m = arith.maximumf %o, %in : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Channels that are not a multiple of the vector, NCHW windows and other
// bodies stay loops.
// CHECK-LABEL: func.func @untouched
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc
// CHECK: linalg.pooling_nchw_max
// CHECK: linalg.pooling_nhwc_min
func.func @untouched(%x: memref<1x6x6x6xf32>, %w: memref<3x3x6xf32>, %y: memref<1x4x4x6xf32>,
                     %n: memref<1x8x6x6xf32>, %window: memref<3x3xf32>, %m: memref<1x8x4x4xf32>,
                     %p: memref<1x6x6x8xf32>, %q: memref<1x4x4x8xf32>) {
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x6x6x6xf32>, memref<3x3x6xf32>) outs(%y : memref<1x4x4x6xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%n, %window : memref<1x8x6x6xf32>, memref<3x3xf32>) outs(%m : memref<1x8x4x4xf32>)
  linalg.pooling_nhwc_min {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %window : memref<1x6x6x8xf32>, memref<3x3xf32>) outs(%q : memref<1x4x4x8xf32>)
  return
}

// -----

// A window index that is affine but not linear (kw mod 6) is no window:
// its tiles would read past the wrap.
// CHECK-LABEL: func.func @not_linear
// CHECK: linalg.generic
#in = affine_map<(n, oh, ow, c, kh, kw) -> (n, oh + kh, ow + kw mod 6, c)>
#taps = affine_map<(n, oh, ow, c, kh, kw) -> (kh, kw, c)>
#out = affine_map<(n, oh, ow, c, kh, kw) -> (n, oh, ow, c)>
func.func @not_linear(%x: memref<1x4x12x16xf32>, %t: memref<2x8x16xf32>, %y: memref<1x3x4x16xf32>) {
  linalg.generic {indexing_maps = [#in, #taps, #out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %t : memref<1x4x12x16xf32>, memref<2x8x16xf32>) outs(%y : memref<1x3x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}
