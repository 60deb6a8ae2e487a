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

// -----

// A depthwise convolution as a thread's chunk of rows has it: the bias
// broadcast into a buffer of the chunk's own, the window adding into it,
// the residual sum and ReLU reading it into the layer's output. The tiles
// start from the bias's vectors and store through the sum and ReLU
// straight into the output; the chunk's buffer goes.
// CHECK-LABEL: func.func @bias_and_epilogue
// CHECK-SAME: (%[[X:.*]]: memref<1x4x6x8xf32>, %[[W:.*]]: memref<3x3x8xf32>, %[[B:.*]]: memref<8xf32>, %[[R:.*]]: memref<1x2x4x8xf32>)
// CHECK: %[[Y:.*]] = memref.alloc() : memref<1x2x4x8xf32>
// CHECK-NOT: memref.alloc
// CHECK: scf.for %[[ROW:[a-z0-9_]+]] =
// CHECK: %[[B0:.*]] = vector.load %[[B]][%[[C0:.*]]] : memref<8xf32>, vector<4xf32>
// CHECK: %[[TERMS:.*]]:4 = scf.for
// CHECK: vector.fma
// CHECK: %[[RES:.*]] = vector.load %[[R]][%{{.*}}, %[[ROW]], %{{.*}}, %[[C0]]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[TERMS]]#0, %[[RES]]
// CHECK: %[[RELU:.*]] = arith.maximumf %[[SUM]]
// CHECK-NEXT: vector.store %[[RELU]], %[[Y]][%{{.*}}, %[[ROW]], %{{.*}}, %[[C0]]]
// CHECK-NOT: linalg.
// CHECK-NOT: memref.dealloc
// CHECK: return %[[Y]]
#bias = affine_map<(n, h, w, c) -> (c)>
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @bias_and_epilogue(%x: memref<1x4x6x8xf32>, %w: memref<3x3x8xf32>, %b: memref<8xf32>,
                             %r: memref<1x2x4x8xf32>) -> memref<1x2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<1x2x4x8xf32>
  %acc = memref.alloc() : memref<1x2x4x8xf32>
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : memref<8xf32>) outs(%acc : memref<1x2x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x4x6x8xf32>, memref<3x3x8xf32>) outs(%acc : memref<1x2x4x8xf32>)
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %r : memref<1x2x4x8xf32>, memref<1x2x4x8xf32>) outs(%y : memref<1x2x4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %sum = arith.addf %a, %s : f32
    %relu = arith.maximumf %sum, %zero : f32
    linalg.yield %relu : f32
  }
  memref.dealloc %acc : memref<1x2x4x8xf32>
  return %y : memref<1x2x4x8xf32>
}

// -----

// A pooling's fill: the tiles start from its value. With no epilogue the
// output stays the pooling's.
// CHECK-LABEL: func.func @pooling_fill
// CHECK-SAME: (%[[X:.*]]: memref<1x5x5x8xf32>, %{{.*}}: memref<3x3xf32>, %[[Y:.*]]: memref<1x2x2x8xf32>)
// CHECK: %[[LOWEST:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NOT: linalg.fill
// CHECK: vector.broadcast %[[LOWEST]] : f32 to vector<4xf32>
// CHECK: arith.maximumf
// CHECK: vector.store {{.*}}, %[[Y]]
func.func @pooling_fill(%x: memref<1x5x5x8xf32>, %window: memref<3x3xf32>, %y: memref<1x2x2x8xf32>) {
  %lowest = arith.constant 0xFF800000 : f32
  linalg.fill ins(%lowest : f32) outs(%y : memref<1x2x2x8xf32>)
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %window : memref<1x5x5x8xf32>, memref<3x3xf32>) outs(%y : memref<1x2x2x8xf32>)
  return
}

// -----

// Folding stops where it would change what the tiles read: an init that
// an op touching memory separates from the window stays.
// CHECK-LABEL: func.func @init_not_folded
// CHECK: linalg.fill
// CHECK: memref.copy
// CHECK: scf.for
func.func @init_not_folded(%x: memref<1x5x5x8xf32>, %window: memref<3x3xf32>, %y: memref<1x2x2x8xf32>,
                           %other: memref<4xf32>, %copy: memref<4xf32>) {
  %lowest = arith.constant 0xFF800000 : f32
  linalg.fill ins(%lowest : f32) outs(%y : memref<1x2x2x8xf32>)
  memref.copy %other, %copy : memref<4xf32> to memref<4xf32>
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %window : memref<1x5x5x8xf32>, memref<3x3xf32>) outs(%y : memref<1x2x2x8xf32>)
  return
}

// -----

// So does an epilogue whose output is a view of the window's input: later
// tiles would read what earlier ones stored. The fill still folds.
// CHECK-LABEL: func.func @epilogue_not_folded
// CHECK-SAME: (%[[X:.*]]: memref<1x4x4x8xf32>
// CHECK: %[[ACC:.*]] = memref.alloc()
// CHECK-NOT: linalg.fill
// CHECK: scf.for
// CHECK: vector.store {{.*}}, %[[ACC]]
// CHECK: %[[CORNER:.*]] = memref.subview %[[X]]
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[CORNER]] :
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @epilogue_not_folded(%x: memref<1x4x4x8xf32>, %w: memref<3x3x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<1x2x2x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x2x2x8xf32>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x4x4x8xf32>, memref<3x3x8xf32>) outs(%acc : memref<1x2x2x8xf32>)
  %corner = memref.subview %x[0, 0, 0, 0] [1, 2, 2, 8] [1, 1, 1, 1]
      : memref<1x4x4x8xf32> to memref<1x2x2x8xf32, strided<[128, 32, 8, 1]>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x2x2x8xf32>) outs(%corner : memref<1x2x2x8xf32, strided<[128, 32, 8, 1]>>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %acc : memref<1x2x2x8xf32>
  return
}

// -----

// An outlined loop's arguments: the epilogue folds where no call passes
// the window's input as the epilogue's output (@apart), not where one does
// (@together).
// CHECK-LABEL: func.func private @apart
// CHECK-NOT: memref.alloc
// CHECK: vector.fma
// CHECK-NOT: linalg.
// CHECK-LABEL: func.func private @together
// CHECK: memref.alloc
// CHECK: vector.fma
// CHECK: linalg.generic
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func private @apart(%x: memref<1x4x4x8xf32>, %w: memref<3x3x8xf32>, %y: memref<1x2x2x8xf32, strided<[128, 32, 8, 1], offset: ?>>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<1x2x2x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x2x2x8xf32>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x4x4x8xf32>, memref<3x3x8xf32>) outs(%acc : memref<1x2x2x8xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x2x2x8xf32>) outs(%y : memref<1x2x2x8xf32, strided<[128, 32, 8, 1], offset: ?>>) {
  ^bb0(%a: f32, %out: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  memref.dealloc %acc : memref<1x2x2x8xf32>
  return
}
func.func private @together(%x: memref<1x4x4x8xf32>, %w: memref<3x3x8xf32>, %y: memref<1x2x2x8xf32, strided<[128, 32, 8, 1], offset: ?>>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<1x2x2x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x2x2x8xf32>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x4x4x8xf32>, memref<3x3x8xf32>) outs(%acc : memref<1x2x2x8xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x2x2x8xf32>) outs(%y : memref<1x2x2x8xf32, strided<[128, 32, 8, 1], offset: ?>>) {
  ^bb0(%a: f32, %out: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  memref.dealloc %acc : memref<1x2x2x8xf32>
  return
}
func.func @caller(%w: memref<3x3x8xf32>) {
  %a = memref.alloc() : memref<1x4x4x8xf32>
  %b = memref.alloc() : memref<1x4x4x8xf32>
  %corner_b = memref.subview %b[0, 0, 0, 0] [1, 2, 2, 8] [1, 1, 1, 1]
      : memref<1x4x4x8xf32> to memref<1x2x2x8xf32, strided<[128, 32, 8, 1]>>
  %cast_b = memref.cast %corner_b : memref<1x2x2x8xf32, strided<[128, 32, 8, 1]>> to memref<1x2x2x8xf32, strided<[128, 32, 8, 1], offset: ?>>
  call @apart(%a, %w, %cast_b) : (memref<1x4x4x8xf32>, memref<3x3x8xf32>, memref<1x2x2x8xf32, strided<[128, 32, 8, 1], offset: ?>>) -> ()
  %corner_a = memref.subview %a[0, 1, 1, 0] [1, 2, 2, 8] [1, 1, 1, 1]
      : memref<1x4x4x8xf32> to memref<1x2x2x8xf32, strided<[128, 32, 8, 1], offset: 40>>
  %cast = memref.cast %corner_a : memref<1x2x2x8xf32, strided<[128, 32, 8, 1], offset: 40>> to memref<1x2x2x8xf32, strided<[128, 32, 8, 1], offset: ?>>
  call @together(%a, %w, %cast) : (memref<1x4x4x8xf32>, memref<3x3x8xf32>, memref<1x2x2x8xf32, strided<[128, 32, 8, 1], offset: ?>>) -> ()
  memref.dealloc %a : memref<1x4x4x8xf32>
  memref.dealloc %b : memref<1x4x4x8xf32>
  return
}

// -----

// A destination that is no view of a known buffer (a select, here between
// a view of the window's own input and another buffer) may be anything:
// the epilogue stays.
// CHECK-LABEL: func.func @select_destination
// CHECK: vector.fma
// CHECK: linalg.generic
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @select_destination(%other: memref<1x2x2x8xf32, strided<[?, ?, ?, 1], offset: ?>>, %which: i1) {
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() : memref<1x4x4x8xf32>
  %w = memref.alloc() : memref<3x3x8xf32>
  %corner = memref.subview %x[0, 0, 0, 0] [1, 2, 2, 8] [1, 1, 1, 1]
      : memref<1x4x4x8xf32> to memref<1x2x2x8xf32, strided<[128, 32, 8, 1]>>
  %view = memref.cast %corner : memref<1x2x2x8xf32, strided<[128, 32, 8, 1]>> to memref<1x2x2x8xf32, strided<[?, ?, ?, 1], offset: ?>>
  %y = arith.select %which, %view, %other : memref<1x2x2x8xf32, strided<[?, ?, ?, 1], offset: ?>>
  %acc = memref.alloc() : memref<1x2x2x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x2x2x8xf32>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x4x4x8xf32>, memref<3x3x8xf32>) outs(%acc : memref<1x2x2x8xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x2x2x8xf32>) outs(%y : memref<1x2x2x8xf32, strided<[?, ?, ?, 1], offset: ?>>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %acc : memref<1x2x2x8xf32>
  memref.dealloc %w : memref<3x3x8xf32>
  memref.dealloc %x : memref<1x4x4x8xf32>
  return
}

// -----

// The epilogue's own inputs: a residual it sums in place, element for
// element, folds (@in_place); one read from a shifted view of the buffer
// it writes would be read in another order by the tiles than by its loops,
// and stays (@shifted); so does an epilogue writing the window's output
// itself (@onto_output).
// CHECK-LABEL: func.func @in_place
// CHECK-COUNT-2: memref.alloc()
// CHECK-NOT: memref.alloc
// CHECK: vector.fma
// CHECK-NOT: linalg.
// CHECK-LABEL: func.func @shifted
// CHECK: vector.fma
// CHECK: linalg.generic
// CHECK-LABEL: func.func @onto_output
// CHECK: vector.fma
// CHECK: linalg.generic
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @in_place(%w: memref<3x3x8xf32>) -> memref<1x2x2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() : memref<1x4x4x8xf32>
  %y = memref.alloc() : memref<1x2x2x8xf32>
  %acc = memref.alloc() : memref<1x2x2x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x2x2x8xf32>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x4x4x8xf32>, memref<3x3x8xf32>) outs(%acc : memref<1x2x2x8xf32>)
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %y : memref<1x2x2x8xf32>, memref<1x2x2x8xf32>) outs(%y : memref<1x2x2x8xf32>) {
  ^bb0(%a: f32, %r: f32, %out: f32):
    %s = arith.addf %a, %r : f32
    linalg.yield %s : f32
  }
  memref.dealloc %acc : memref<1x2x2x8xf32>
  memref.dealloc %x : memref<1x4x4x8xf32>
  return %y : memref<1x2x2x8xf32>
}
func.func @shifted(%w: memref<3x3x8xf32>) -> memref<1x2x3x8xf32> {
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() : memref<1x4x4x8xf32>
  %b = memref.alloc() : memref<1x2x3x8xf32>
  %y = memref.subview %b[0, 0, 1, 0] [1, 2, 2, 8] [1, 1, 1, 1]
      : memref<1x2x3x8xf32> to memref<1x2x2x8xf32, strided<[48, 24, 8, 1], offset: 8>>
  %r = memref.subview %b[0, 0, 0, 0] [1, 2, 2, 8] [1, 1, 1, 1]
      : memref<1x2x3x8xf32> to memref<1x2x2x8xf32, strided<[48, 24, 8, 1]>>
  %acc = memref.alloc() : memref<1x2x2x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x2x2x8xf32>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x4x4x8xf32>, memref<3x3x8xf32>) outs(%acc : memref<1x2x2x8xf32>)
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %r : memref<1x2x2x8xf32>, memref<1x2x2x8xf32, strided<[48, 24, 8, 1]>>)
      outs(%y : memref<1x2x2x8xf32, strided<[48, 24, 8, 1], offset: 8>>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %sum = arith.addf %a, %s : f32
    linalg.yield %sum : f32
  }
  memref.dealloc %acc : memref<1x2x2x8xf32>
  memref.dealloc %x : memref<1x4x4x8xf32>
  return %b : memref<1x2x3x8xf32>
}
func.func @onto_output(%w: memref<3x3x8xf32>, %x: memref<1x4x4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<1x2x2x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x2x2x8xf32>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x4x4x8xf32>, memref<3x3x8xf32>) outs(%acc : memref<1x2x2x8xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x2x2x8xf32>) outs(%acc : memref<1x2x2x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %acc : memref<1x2x2x8xf32>
  return
}
