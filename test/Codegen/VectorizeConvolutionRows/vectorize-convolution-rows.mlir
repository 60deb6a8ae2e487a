// RUN: qdq-opt %s --split-input-file --qdq-vectorize-convolution-rows --canonicalize --cse | FileCheck %s
// RUN: not qdq-opt %s --split-input-file --qdq-vectorize-convolution-rows=width=1 2>&1 | FileCheck %s --check-prefix=OPTIONS

// OPTIONS: width must be 2 or more, rows and vectors 1 or more

// A depthwise 3x3 convolution at stride 1 (NCHW, channels as groups, the
// padding already in the input), 9 rows of 36 columns: tiles of 4 rows by 2
// vectors in loops, the columns' fifth vector (4 of its 8 lanes in the
// row) masked, then the ninth row. Rows share input vectors: the main
// tile's 72 FMAs read 36 input vectors (6 rows, 3 taps, 2 vectors).
// CHECK-LABEL: func.func @depthwise
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: scf.for %[[G:.*]] = %[[C0]] to %[[C3]] step %[[C1]]
// CHECK:   scf.for %[[OH:.*]] = %[[C0]] to %[[C8]] step %[[C4]]
// CHECK:     scf.for %[[OW:.*]] = %[[C0]] to %[[C32]] step %[[C16]]
// CHECK:       %[[ACC:.*]] = vector.transfer_read %arg2[%[[C0]], %[[G]], %[[C0]], %[[OH]], %[[OW]]], %{{.*}} {in_bounds = [true]} : memref<1x3x1x9x36xf32>, vector<8xf32>
// CHECK-COUNT-7: vector.transfer_read %arg2{{.*}} {in_bounds = [true]}
// CHECK:       %[[W:.*]] = memref.load %arg1[%[[G]], %[[C0]], %[[C0]], %[[C0]], %[[C0]]]
// CHECK:       %[[WV:.*]] = vector.broadcast %[[W]] : f32 to vector<8xf32>
// CHECK:       %[[X:.*]] = vector.transfer_read %arg0[%[[C0]], %[[G]], %[[C0]], %[[OH]], %[[OW]]], %{{.*}} {in_bounds = [true]}
// CHECK:       vector.fma %[[X]], %[[WV]], %[[ACC]] : vector<8xf32>
// CHECK-COUNT-71: vector.fma
// CHECK-COUNT-8: vector.transfer_write {{.*}} {in_bounds = [true]} : vector<8xf32>, memref<1x3x1x9x36xf32>
// CHECK:     }
// The masked fifth vector of those rows.
// CHECK:     vector.transfer_read %arg2[%[[C0]], %[[G]], %[[C0]], %[[OH]], %[[C32]]], %{{.*}} : memref<1x3x1x9x36xf32>, vector<8xf32>
// CHECK:     vector.transfer_write %{{.*}}, %arg2[%[[C0]], %[[G]], %[[C0]], %[[OH]], %[[C32]]] : vector<8xf32>, memref<1x3x1x9x36xf32>
// CHECK:   }
// The ninth row: whole tiles, then the masked vector.
// CHECK:   scf.for %[[OW:.*]] = %[[C0]] to %[[C32]] step %[[C16]]
// CHECK:     vector.transfer_write %{{.*}}, %arg2[%[[C0]], %[[G]], %[[C0]], %[[C8]], %[[OW]]] {in_bounds = [true]}
// CHECK:   }
// CHECK:   vector.transfer_write %{{.*}}, %arg2[%[[C0]], %[[G]], %[[C0]], %[[C8]], %[[C32]]] : vector<8xf32>
// CHECK-NOT: linalg.generic
#in = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (n, g, c, oh + kh, ow + kw)>
#w = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (g, f, c, kh, kw)>
#out = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (n, g, f, oh, ow)>
func.func @depthwise(%x: memref<1x3x1x11x38xf32>, %w: memref<3x1x1x3x3xf32>,
                     %y: memref<1x3x1x9x36xf32>) {
  linalg.generic {indexing_maps = [#in, #w, #out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<1x3x1x11x38xf32>, memref<3x1x1x3x3xf32>)
      outs(%y : memref<1x3x1x9x36xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Stride 2, 2 rows of 16 columns from rows of 33: an input vector is the
// even lanes of two reads. The second vector's reads at the last tap would
// pass the row's end (16 * 2 + 2 + 16 > 33), so its reads are masked (the
// canonicalizer proves the others in bounds).
// CHECK-LABEL: func.func @depthwise_stride2
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C18:.*]] = arith.constant 18 : index
// CHECK-DAG: %[[C26:.*]] = arith.constant 26 : index
// CHECK: %[[ACC:.*]] = vector.transfer_read %arg2[%[[C0]], %[[C0]], %[[C0]], %[[C0]], %[[C0]]]{{.*}} {in_bounds = [true]}
// CHECK: %[[A:.*]] = vector.transfer_read %arg0[%[[C0]], %[[C0]], %[[C0]], %[[C0]], %[[C0]]]{{.*}} {in_bounds = [true]}
// CHECK: %[[B:.*]] = vector.transfer_read %arg0[%[[C0]], %[[C0]], %[[C0]], %[[C0]], %[[C8]]]{{.*}} {in_bounds = [true]}
// CHECK: %[[E:.*]] = vector.shuffle %[[A]], %[[B]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<8xf32>, vector<8xf32>
// CHECK: vector.fma %[[E]], %{{.*}}, %[[ACC]]
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true]}
// CHECK: vector.transfer_read %arg0[%[[C0]], %[[C0]], %[[C0]], %{{.*}}, %[[C18]]], %{{.*}} {in_bounds = [true]}
// CHECK: vector.transfer_read %arg0[%[[C0]], %[[C0]], %[[C0]], %{{.*}}, %[[C26]]], %{{.*}} : memref<1x1x1x5x33xf32>, vector<8xf32>
#in = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (n, g, c, oh * 2 + kh, ow * 2 + kw)>
#w = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (g, f, c, kh, kw)>
#out = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (n, g, f, oh, ow)>
func.func @depthwise_stride2(%x: memref<1x1x1x5x33xf32>, %w: memref<1x1x1x3x3xf32>,
                             %y: memref<1x1x1x2x16xf32>) {
  linalg.generic {indexing_maps = [#in, #w, #out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<1x1x1x5x33xf32>, memref<1x1x1x3x3xf32>)
      outs(%y : memref<1x1x1x2x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Grouped: 2 input channels per group, 2 output channels per group. A loop
// over the group's input channels carries the tile's accumulators; the
// group's output channels are a loop around the tiles.
// CHECK-LABEL: func.func @grouped
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: scf.for %[[G:.*]] = %[[C0]] to %[[C2]] step %[[C1]]
// CHECK:   scf.for %[[F:.*]] = %[[C0]] to %[[C2]] step %[[C1]]
// CHECK:     %[[ACC:.*]] = vector.transfer_read %arg2[%[[C0]], %[[G]], %[[F]], %[[C0]], %[[C0]]]
// CHECK:     %[[SUM:.*]]:4 = scf.for %[[C:.*]] = %[[C0]] to %[[C2]] step %[[C1]] iter_args(%[[A0:.*]] = %[[ACC]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK:       memref.load %arg1[%[[G]], %[[F]], %[[C]], %[[C0]], %[[C0]]]
// CHECK:       vector.transfer_read %arg0[%[[C0]], %[[G]], %[[C]], %[[C0]], %[[C0]]]
// CHECK:       scf.yield
// CHECK:     vector.transfer_write %[[SUM]]#0, %arg2[%[[C0]], %[[G]], %[[F]], %[[C0]], %[[C0]]]
#in = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (n, g, c, oh + kh, ow + kw)>
#w = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (g, f, c, kh, kw)>
#out = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (n, g, f, oh, ow)>
func.func @grouped(%x: memref<1x2x2x4x18xf32>, %w: memref<2x2x2x3x3xf32>,
                   %y: memref<1x2x2x2x16xf32>) {
  linalg.generic {indexing_maps = [#in, #w, #out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<1x2x2x4x18xf32>, memref<2x2x2x3x3xf32>)
      outs(%y : memref<1x2x2x2x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left alone: stride 3 along the columns; NHWC, whose contiguous dimension
// is the channel; a body that is not a multiply-accumulate; dynamic shapes.
// CHECK-LABEL: func.func @stride3
// CHECK: linalg.generic
#in = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (n, g, c, oh + kh, ow * 3 + kw)>
#w = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (g, f, c, kh, kw)>
#out = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (n, g, f, oh, ow)>
func.func @stride3(%x: memref<1x1x1x3x27xf32>, %w: memref<1x1x1x3x3xf32>,
                   %y: memref<1x1x1x1x9xf32>) {
  linalg.generic {indexing_maps = [#in, #w, #out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<1x1x1x3x27xf32>, memref<1x1x1x3x3xf32>)
      outs(%y : memref<1x1x1x1x9xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @nhwc_depthwise
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc
func.func @nhwc_depthwise(%x: memref<1x6x6x16xf32>, %w: memref<3x3x16xf32>,
                          %y: memref<1x4x4x16xf32>) {
  linalg.depthwise_conv_2d_nhwc_hwc
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x6x6x16xf32>, memref<3x3x16xf32>)
      outs(%y : memref<1x4x4x16xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @max_window
// CHECK: linalg.generic
#in = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (n, g, c, oh + kh, ow + kw)>
#w = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (g, f, c, kh, kw)>
#out = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (n, g, f, oh, ow)>
func.func @max_window(%x: memref<1x1x1x3x18xf32>, %w: memref<1x1x1x3x3xf32>,
                      %y: memref<1x1x1x1x16xf32>) {
  linalg.generic {indexing_maps = [#in, #w, #out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<1x1x1x3x18xf32>, memref<1x1x1x3x3xf32>)
      outs(%y : memref<1x1x1x1x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.maximumf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @dynamic
// CHECK: linalg.conv_2d_nchw_fchw
func.func @dynamic(%x: memref<?x1x6x18xf32>, %w: memref<1x1x3x3xf32>,
                   %y: memref<?x1x4x16xf32>) {
  linalg.conv_2d_nchw_fchw
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<?x1x6x18xf32>, memref<1x1x3x3xf32>)
      outs(%y : memref<?x1x4x16xf32>)
  return
}

// -----

// An output indexed by a reduction loop (here the input channel), and a
// filter that varies with the output row: tiles would write one channel or
// use one row's filter for all their rows.
// CHECK-LABEL: func.func @reduction_in_output
// CHECK: linalg.generic
#in = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (n, g, c, oh + kh, ow + kw)>
#w = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (g, f, c, kh, kw)>
#out = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (n, g, c, oh, ow)>
func.func @reduction_in_output(%x: memref<1x1x2x3x18xf32>, %w: memref<1x1x2x3x3xf32>,
                               %y: memref<1x1x2x1x16xf32>) {
  linalg.generic {indexing_maps = [#in, #w, #out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<1x1x2x3x18xf32>, memref<1x1x2x3x3xf32>)
      outs(%y : memref<1x1x2x1x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func.func @filter_per_row
// CHECK: linalg.generic
#in2 = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (n, g, c, oh + kh, ow + kw)>
#w2 = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (g, f, c, oh, kh, kw)>
#out2 = affine_map<(n, g, f, oh, c, kh, kw, ow) -> (n, g, f, oh, ow)>
func.func @filter_per_row(%x: memref<1x1x1x6x18xf32>, %w: memref<1x1x1x4x3x3xf32>,
                          %y: memref<1x1x1x4x16xf32>) {
  linalg.generic {indexing_maps = [#in2, #w2, #out2],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<1x1x1x6x18xf32>, memref<1x1x1x4x3x3xf32>)
      outs(%y : memref<1x1x1x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}
