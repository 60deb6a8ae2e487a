// RUN: qdq-opt %s --split-input-file --qdq-vectorize-elementwise | FileCheck %s
// RUN: not qdq-opt %s --split-input-file --qdq-vectorize-elementwise=width=1 2>&1 | FileCheck %s --check-prefix=WIDTH

// WIDTH: width must be 2 or more, got 1

// A bias added to rows of 20: a loop over the rows around two 8-wide vector
// steps, then a scalar loop over the last 4 elements. The per-row bias and
// the constant are broadcast.
// CHECK-LABEL: func.func @bias_relu
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C20:.*]] = arith.constant 20 : index
// CHECK: scf.for %[[I:.*]] = %[[C0]] to %[[C3]] step %[[C1]]
// CHECK:   scf.for %[[J:.*]] = %[[C0]] to %[[C16]] step %[[C8]]
// CHECK:     %[[X:.*]] = vector.load %arg0[%[[I]], %[[J]]] : memref<3x20xf32>, vector<8xf32>
// CHECK:     %[[B:.*]] = memref.load %arg1[%[[I]]] : memref<3xf32>
// CHECK:     %[[BV:.*]] = vector.broadcast %[[B]] : f32 to vector<8xf32>
// CHECK:     %[[S:.*]] = arith.addf %[[X]], %[[BV]] : vector<8xf32>
// CHECK:     %[[Z:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK:     %[[R:.*]] = arith.maximumf %[[S]], %[[Z]] : vector<8xf32>
// CHECK:     vector.store %[[R]], %arg2[%[[I]], %[[J]]] : memref<3x20xf32>, vector<8xf32>
// CHECK:   scf.for %[[K:.*]] = %[[C16]] to %[[C20]] step %[[C1]]
// CHECK:     memref.load %arg0[%[[I]], %[[K]]] : memref<3x20xf32>
// CHECK:     arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:     memref.store %{{.*}}, %arg2[%[[I]], %[[K]]] : memref<3x20xf32>
// CHECK-NOT: linalg.generic
#rows = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d0)>
func.func @bias_relu(%x: memref<3x20xf32>, %b: memref<3xf32>, %y: memref<3x20xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#rows, #bias, #rows],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<3x20xf32>, memref<3xf32>) outs(%y : memref<3x20xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A whole number of vectors: no scalar loop; the output is read where the
// body reads it. A subview with unit inner stride is walked as it is.
// CHECK-LABEL: func.func @accumulate
// CHECK: scf.for
// CHECK:   vector.load %arg0
// CHECK:   vector.load %{{.*}} : memref<16xf32, strided<[1], offset: 4>>, vector<8xf32>
// CHECK:   arith.addf %{{.*}} : vector<8xf32>
// CHECK:   vector.store
// CHECK-NOT: scf.for
#id = affine_map<(d0) -> (d0)>
func.func @accumulate(%x: memref<16xf32>, %y: memref<32xf32>) {
  %part = memref.subview %y[4] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1], offset: 4>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<16xf32>) outs(%part : memref<16xf32, strided<[1], offset: 4>>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left as they are: an inner loop shorter than a vector, an operand that
// the inner loop walks with a stride (a transpose), a buffer of i1, a body
// that reads its indices, and a product reduction.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: vector.
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT: vector.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#t2 = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @left_alone(%short: memref<4x7xf32>, %sq: memref<16x16xf32>,
                      %mask: memref<4x16xi1>, %out: memref<4x16xf32>, %sum: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%short : memref<4x7xf32>) outs(%short : memref<4x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%sq : memref<16x16xf32>) outs(%sq : memref<16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mask : memref<4x16xi1>) outs(%out : memref<4x16xf32>) {
  ^bb0(%m: i1, %o: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.select %m, %one, %o : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%out : memref<4x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i64
    %f = arith.sitofp %c : i64 to f32
    linalg.yield %f : f32
  }
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%out : memref<4x16xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%a: f32, %s: f32):
    %t = arith.mulf %a, %s : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Named ops are generalized first: the transpose that packs a contraction's
// panels (its innermost dimension stays innermost, on a subview with a
// dynamic offset) and a bias broadcast become vector loops.
// CHECK-LABEL: func.func @named_ops
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.for %[[I:.*]] =
// CHECK:   scf.for %[[J:.*]] =
// CHECK:     scf.for %[[K:.*]] = %{{.*}} to %[[C16]] step %[[C8]]
// CHECK:       %[[V:.*]] = vector.load %arg0[%[[J]], %[[I]], %[[K]]] : memref<3x5x16xf32, strided<[80, 16, 1], offset: ?>>, vector<8xf32>
// CHECK:       vector.store %[[V]], %arg1[%[[I]], %[[J]], %[[K]]] : memref<5x3x16xf32>, vector<8xf32>
// CHECK: scf.for %[[R:.*]] =
// CHECK:   scf.for %[[S:.*]] =
// CHECK:     %[[B:.*]] = memref.load %arg2[%[[R]]] : memref<4xf32>
// CHECK:     %[[BV:.*]] = vector.broadcast %[[B]] : f32 to vector<8xf32>
// CHECK:     vector.store %[[BV]], %arg3[%[[R]], %[[S]]] : memref<4x16xf32>, vector<8xf32>
// CHECK-NOT: linalg.
func.func @named_ops(%in: memref<3x5x16xf32, strided<[80, 16, 1], offset: ?>>,
                     %panels: memref<5x3x16xf32>, %bias: memref<4xf32>,
                     %out: memref<4x16xf32>) {
  linalg.transpose ins(%in : memref<3x5x16xf32, strided<[80, 16, 1], offset: ?>>)
      outs(%panels : memref<5x3x16xf32>) permutation = [1, 0, 2]
  linalg.broadcast ins(%bias : memref<4xf32>) outs(%out : memref<4x16xf32>)
      dimensions = [1]
  return
}

// -----

// An im2col at stride 1: the input's last index is `ow + kw`, which moves
// with the innermost loop (ow) by one, so the window is read in vectors at
// an offset computed once per vector.
// CHECK-LABEL: func.func @window
// CHECK: scf.for %[[KW:.*]] =
// CHECK:   scf.for %[[OW:.*]] = %{{.*}} to %{{.*}} step %{{.*}}
// CHECK:     %[[W:.*]] = affine.apply #{{.*}}(%[[KW]], %[[OW]])
// CHECK:     %[[V:.*]] = vector.load %arg0[%[[W]]] : memref<18xf32>, vector<8xf32>
// CHECK:     vector.store %[[V]], %arg1[%[[KW]], %[[OW]]] : memref<3x16xf32>, vector<8xf32>
// CHECK-NOT: linalg.generic
#win = affine_map<(d0, d1) -> (d1 + d0)>
#cols = affine_map<(d0, d1) -> (d0, d1)>
func.func @window(%x: memref<18xf32>, %cols: memref<3x16xf32>) {
  linalg.generic {indexing_maps = [#win, #cols], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<18xf32>) outs(%cols : memref<3x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// Left as they are: a window at stride 2 (`2 * ow + kw`), a window whose
// innermost loop also moves an outer index, a transpose that moves the
// innermost dimension, and an output indexed through a window.
// CHECK-LABEL: func.func @windows_left_alone
// CHECK-NOT: vector.
// CHECK-COUNT-3: linalg.generic
// CHECK: linalg.transpose
// CHECK-NOT: vector.
#stride2 = affine_map<(d0, d1) -> (d1 * 2 + d0)>
#diag = affine_map<(d0, d1) -> (d1, d1 + d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @windows_left_alone(%x: memref<34xf32>, %sq: memref<16x19xf32>,
                              %cols: memref<3x16xf32>, %t: memref<16x8xf32>,
                              %tt: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [#stride2, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<34xf32>) outs(%cols : memref<3x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#diag, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sq : memref<16x19xf32>) outs(%cols : memref<3x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #diag], iterator_types = ["parallel", "parallel"]}
      ins(%cols : memref<3x16xf32>) outs(%sq : memref<16x19xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.transpose ins(%t : memref<16x8xf32>) outs(%tt : memref<8x16xf32>)
      permutation = [1, 0]
  return
}

// -----

// Min and max reductions (ReduceMin/ReduceMax, calibration's ranges) read
// their input in vectors along the reduction loop it is contiguous in: a
// vector and a scalar accumulator start from the output, run through the
// other reduction loops, and are combined once per output element. The
// parallel loops go outermost. Minimum and maximum are exact, so the order
// changes no bit.
// CHECK-LABEL: func.func @min_rows
// CHECK: scf.for %[[P:.*]] = %c0 to %c1 step %c1
// CHECK:   %[[INIT:.*]] = memref.load %arg1[%[[P]]]
// CHECK:   %[[V0:.*]] = vector.broadcast %[[INIT]] : f32 to vector<8xf32>
// CHECK:   %[[V:.*]] = scf.for %[[R:.*]] = %c0 to %c40 step %c8 iter_args(%[[A:.*]] = %[[V0]]) -> (vector<8xf32>)
// CHECK:     %[[X:.*]] = vector.load %arg0[%[[P]], %[[R]]] : memref<1x40xf32>, vector<8xf32>
// CHECK:     %[[M:.*]] = arith.minimumf %[[A]], %[[X]] : vector<8xf32>
// CHECK:     scf.yield %[[M]]
// CHECK:   %[[L:.*]] = vector.reduction <minimumf>, %[[V]] : vector<8xf32> into f32
// CHECK:   %[[S:.*]] = arith.minimumf %[[L]], %[[INIT]] : f32
// CHECK:   memref.store %[[S]], %arg1[%[[P]]]
// CHECK-NOT: linalg.generic
// CHECK: return
#collapsed = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @min_rows(%x: memref<1x40xf32>, %y: memref<1xf32>) {
  linalg.generic {indexing_maps = [#collapsed, #row], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<1x40xf32>) outs(%y : memref<1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.minimumf %a, %o : f32
    linalg.yield %m : f32
  }
  return
}

// A reduction over two loops, the inner one 20 long: two vectors and a
// scalar remainder of 4, both accumulators carried through the outer loop.
// CHECK-LABEL: func.func @max_planes
// CHECK: scf.for %[[P:.*]] = %c0 to %c3 step %c1
// CHECK:   memref.load %arg1[%[[P]]]
// CHECK:   %[[OUT:.*]]:2 = scf.for %[[H:.*]] = %c0 to %c4 step %c1 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<8xf32>, f32)
// CHECK:     scf.for %{{.*}} = %c0 to %c16 step %c8 iter_args
// CHECK:       vector.load %arg0[%[[P]], %[[H]], %{{.*}}] : memref<3x4x20xf32>, vector<8xf32>
// CHECK:       arith.maximumf %{{.*}} : vector<8xf32>
// CHECK:     scf.for %{{.*}} = %c16 to %c20 step %c1 iter_args
// CHECK:       memref.load %arg0[%[[P]], %[[H]], %{{.*}}] : memref<3x4x20xf32>
// CHECK:       arith.maximumf %{{.*}} : f32
// CHECK:     scf.yield %{{.*}}, %{{.*}} : vector<8xf32>, f32
// CHECK:   vector.reduction <maximumf>, %[[OUT]]#0
// CHECK:   arith.maximumf %{{.*}}, %[[OUT]]#1 : f32
// CHECK:   memref.store
// CHECK-NOT: linalg.generic
// CHECK: return
#planes = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#plane = affine_map<(d0, d1, d2) -> (d0)>
func.func @max_planes(%x: memref<3x4x20xf32>, %y: memref<3xf32>) {
  linalg.generic {indexing_maps = [#planes, #plane], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : memref<3x4x20xf32>) outs(%y : memref<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %o, %a : f32
    linalg.yield %m : f32
  }
  return
}

// A minimum and a maximum of one input in one op (qdq-fuse-sibling-
// reductions): one vector load feeds both vector accumulators, and each
// output gets its own lanes combined and stored.
// CHECK-LABEL: func.func @min_and_max
// CHECK: scf.for %[[P:.*]] = %c0 to %c2 step %c1
// CHECK-DAG:   %[[LO:.*]] = memref.load %arg1[%[[P]]]
// CHECK-DAG:   %[[HI:.*]] = memref.load %arg2[%[[P]]]
// CHECK:   %[[V:.*]]:2 = scf.for %[[R:.*]] = %c0 to %c16 step %c8 iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}}) -> (vector<8xf32>, vector<8xf32>)
// CHECK:     %[[X:.*]] = vector.load %arg0[%[[P]], %[[R]]] : memref<2x20xf32>, vector<8xf32>
// CHECK-NOT: vector.load
// CHECK:     %[[MIN:.*]] = arith.minimumf %[[A]], %[[X]] : vector<8xf32>
// CHECK:     %[[MAX:.*]] = arith.maximumf %[[B]], %[[X]] : vector<8xf32>
// CHECK:     scf.yield %[[MIN]], %[[MAX]]
// CHECK:   %[[S:.*]]:2 = scf.for %{{.*}} = %c16 to %c20 step %c1 iter_args(%{{.*}} = %[[LO]], %{{.*}} = %[[HI]]) -> (f32, f32)
// CHECK:   %[[L0:.*]] = vector.reduction <minimumf>, %[[V]]#0
// CHECK:   %[[M0:.*]] = arith.minimumf %[[L0]], %[[S]]#0 : f32
// CHECK:   memref.store %[[M0]], %arg1[%[[P]]]
// CHECK:   %[[L1:.*]] = vector.reduction <maximumf>, %[[V]]#1
// CHECK:   %[[M1:.*]] = arith.maximumf %[[L1]], %[[S]]#1 : f32
// CHECK:   memref.store %[[M1]], %arg2[%[[P]]]
// CHECK-NOT: linalg.generic
// CHECK: return
#rows = affine_map<(d0, d1) -> (d0, d1)>
#first = affine_map<(d0, d1) -> (d0)>
func.func @min_and_max(%x: memref<2x20xf32>, %lo: memref<2xf32>, %hi: memref<2xf32>) {
  linalg.generic {indexing_maps = [#rows, #first, #first], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<2x20xf32>) outs(%lo, %hi : memref<2xf32>, memref<2xf32>) {
  ^bb0(%a: f32, %l: f32, %h: f32):
    %m = arith.minimumf %a, %l : f32
    %n = arith.maximumf %h, %a : f32
    linalg.yield %m, %n : f32, f32
  }
  return
}

// -----

// Sums read their input in vectors too: `width` running sums from zero,
// added across lanes at the end, then the scalar remainder, then the
// output's value. A normalization's variance sums a term of two inputs, the
// row's mean read once a row and broadcast; a minimum beside a sum in one
// op shares their loads.
// CHECK-LABEL: func.func @sums
// CHECK: scf.for %[[P:.*]] = %c0 to %c3 step %c1
// CHECK:   %[[INIT:.*]] = memref.load %arg1[%[[P]]]
// CHECK:   %[[V:.*]] = scf.for %[[R:.*]] = %c0 to %c40 step %c8 iter_args(%[[A:.*]] = %{{.*}}) -> (vector<8xf32>)
// CHECK:     %[[X:.*]] = vector.load %arg0[%[[P]], %[[R]]] : memref<3x40xf32>, vector<8xf32>
// CHECK:     arith.addf %[[A]], %[[X]] : vector<8xf32>
// CHECK:   %[[L:.*]] = vector.reduction <add>, %[[V]] : vector<8xf32> into f32
// CHECK:   %[[S:.*]] = arith.addf %[[L]], %{{.*}} : f32
// CHECK:   %[[T:.*]] = arith.addf %[[INIT]], %[[S]] : f32
// CHECK:   memref.store %[[T]], %arg1[%[[P]]]
// CHECK: scf.for %[[Q:[a-z0-9_]+]] =
// CHECK:   scf.for %[[R2:[a-z0-9_]+]] = {{.*}} iter_args
// CHECK:     %[[X2:.*]] = vector.load %arg0[%[[Q]], %[[R2]]] : memref<3x40xf32>, vector<8xf32>
// CHECK:     %[[M2:.*]] = memref.load %arg2[%[[Q]]]
// CHECK:     %[[B:.*]] = vector.broadcast %[[M2]] : f32 to vector<8xf32>
// CHECK:     %[[D:.*]] = arith.subf %[[X2]], %[[B]] : vector<8xf32>
// CHECK:     %[[SQ:.*]] = arith.mulf %[[D]], %[[D]] : vector<8xf32>
// CHECK:     arith.addf %{{.*}}, %[[SQ]] : vector<8xf32>
// CHECK:   vector.reduction <add>
// CHECK: scf.for
// CHECK:   scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>)
// CHECK:     vector.load
// CHECK-NOT: vector.load
// CHECK:     arith.minimumf
// CHECK:     arith.addf
// CHECK:   vector.reduction <minimumf>
// CHECK:   vector.reduction <add>
// CHECK-NOT: linalg.generic
// CHECK: return
#r2 = affine_map<(d0, d1) -> (d0, d1)>
#r1 = affine_map<(d0, d1) -> (d0)>
func.func @sums(%x: memref<3x40xf32>, %y: memref<3xf32>, %mean: memref<3xf32>, %var: memref<3xf32>) {
  linalg.generic {indexing_maps = [#r2, #r1], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<3x40xf32>) outs(%y : memref<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#r2, #r1, #r1], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : memref<3x40xf32>, memref<3xf32>) outs(%var : memref<3xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %q = arith.mulf %d, %d : f32
    %s = arith.addf %o, %q : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#r2, #r1, #r1], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<3x40xf32>) outs(%y, %var : memref<3xf32>, memref<3xf32>) {
  ^bb0(%a: f32, %o: f32, %p: f32):
    %m = arith.minimumf %a, %o : f32
    %s = arith.addf %a, %p : f32
    linalg.yield %m, %s : f32, f32
  }
  return
}

// -----

// Left as they are: a minimum whose reduction runs across rows (the input
// is contiguous along the parallel loop instead), minnumf (which of two
// zeros it returns depends on their order), a sum whose term reads its own
// running value, and a minimum of a computed term (only a sum takes one).
// CHECK-LABEL: func.func @reductions_left_alone
// CHECK-NOT: vector.
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: vector.
#r2 = affine_map<(d0, d1) -> (d0, d1)>
#r1 = affine_map<(d0, d1) -> (d0)>
#c1 = affine_map<(d0, d1) -> (d1)>
func.func @reductions_left_alone(%x: memref<3x40xf32>, %y: memref<3xf32>, %z: memref<40xf32>) {
  linalg.generic {indexing_maps = [#r2, #c1], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<3x40xf32>) outs(%z : memref<40xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.minimumf %a, %o : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#r2, #r1], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<3x40xf32>) outs(%y : memref<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.minnumf %a, %o : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#r2, #r1], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<3x40xf32>) outs(%y : memref<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %h = arith.mulf %o, %a : f32
    %s = arith.addf %h, %o : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#r2, #r1], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<3x40xf32>) outs(%y : memref<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    %m = arith.minimumf %n, %o : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A thread's chunk of rows whose count is known only at run time (197
// tokens in chunks of 13: the last is shorter): the row count comes from the
// buffer, and each row is two 8-wide vectors and a scalar loop for the rest.
// A GELU's erf is a vector op too.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK-DAG: %[[ROWS:.*]] = memref.dim %arg0, %{{.*}} : memref<?x20xf32, strided<[20, 1], offset: ?>>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C20:.*]] = arith.constant 20 : index
// CHECK: scf.for %[[I:.*]] = %[[C0]] to %[[ROWS]] step %[[C1]]
// CHECK:   scf.for %[[J:.*]] = %[[C0]] to %[[C16]] step %[[C8]]
// CHECK:     %[[X:.*]] = vector.load %arg0[%[[I]], %[[J]]] : memref<?x20xf32, strided<[20, 1], offset: ?>>, vector<8xf32>
// CHECK:     math.erf %[[X]] : vector<8xf32>
// CHECK:     vector.store %{{.*}}, %arg1[%[[I]], %[[J]]] : memref<?x20xf32, strided<[20, 1], offset: ?>>, vector<8xf32>
// CHECK:   scf.for %[[K:.*]] = %[[C16]] to %[[C20]] step %[[C1]]
// CHECK:     math.erf %{{.*}} : f32
// CHECK-NOT: linalg.generic
#rows_dynamic = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic_rows(%x: memref<?x20xf32, strided<[20, 1], offset: ?>>,
                        %y: memref<?x20xf32, strided<[20, 1], offset: ?>>) {
  linalg.generic {indexing_maps = [#rows_dynamic, #rows_dynamic],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x20xf32, strided<[20, 1], offset: ?>>)
      outs(%y : memref<?x20xf32, strided<[20, 1], offset: ?>>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.erf %a : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A run-time innermost size (a collapsed chunk): the vector loop ends at
// its last whole vector, the scalar loop at the size itself.
// CHECK: #[[WHOLE:.*]] = affine_map<(d0) -> ((d0 floordiv 8) * 8)>
// CHECK-LABEL: func.func @dynamic_inner
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[N:.*]] = memref.dim %arg0, %[[C0]]
// CHECK: %[[END:.*]] = affine.apply #{{.*}}(%[[N]])
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[END]] step %[[C8]]
// CHECK:   vector.load
// CHECK:   math.exp %{{.*}} : vector<8xf32>
// CHECK: scf.for %{{.*}} = %[[END]] to %[[N]]
// CHECK:   memref.load
func.func @dynamic_inner(%x: memref<?xf32>, %y: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}
