// Linalg ops left in a function body share their outermost parallel loop
// of two or more iterations among threads through an scf.forall; small
// ops, tiles already inside loops and dynamic shapes are left alone.
// RUN: qdq-opt %s --qdq-distribute-loops="min-iterations=64 chunks=4" --split-input-file | FileCheck %s
// RUN: qdq-opt %s --qdq-distribute-loops="min-iterations=64 chunks=4" --split-input-file | FileCheck %s --check-prefix=ONCE

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>

// The unit batch loop is skipped: the 10 rows become 4 chunks of 3 (the
// last of 1), each an element-wise op on its slice.
// CHECK-LABEL: func.func @elementwise
// CHECK: scf.forall (%[[I:.*]]) = (0) to (10) step (3) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<1x10x32xf32>)
// CHECK:   %[[N:.*]] = affine.min
// CHECK:   linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<1x?x32xf32>)
// CHECK:     math.exp
// CHECK:   tensor.parallel_insert_slice %{{.*}} into %[[OUT]][0, %[[I]], 0] [1, %[[N]], 32]
func.func @elementwise(%x: tensor<1x10x32xf32>) -> tensor<1x10x32xf32> {
  %e = tensor.empty() : tensor<1x10x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x10x32xf32>) outs(%e : tensor<1x10x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<1x10x32xf32>
  return %r : tensor<1x10x32xf32>
}

// -----

// A row reduction keeps each row's sum whole: only rows are shared out.
// CHECK-LABEL: func.func @row_sum
// CHECK: scf.forall (%{{.*}}) = (0) to (8) step (2)
// CHECK:   linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%{{.*}} : tensor<2x2x16xf32>) outs(%{{.*}} : tensor<2x2xf32>)
#id2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @row_sum(%x: tensor<8x2x16xf32>, %acc: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %r = linalg.generic {indexing_maps = [#id2, #row2],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<8x2x16xf32>) outs(%acc : tensor<8x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<8x2xf32>
  return %r : tensor<8x2xf32>
}

// -----

// Below min-iterations (63 points), dynamic, or already inside a loop: no
// forall.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.forall
// CHECK: return
func.func @left_alone(%small: tensor<7x9xf32>, %dyn: tensor<?x64xf32>,
                      %n: index) -> (tensor<7x9xf32>, tensor<?x64xf32>, tensor<64x64xf32>) {
  %e = tensor.empty() : tensor<7x9xf32>
  %a = linalg.exp ins(%small : tensor<7x9xf32>) outs(%e : tensor<7x9xf32>) -> tensor<7x9xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %dyn, %c0 : tensor<?x64xf32>
  %ed = tensor.empty(%d) : tensor<?x64xf32>
  %b = linalg.exp ins(%dyn : tensor<?x64xf32>) outs(%ed : tensor<?x64xf32>) -> tensor<?x64xf32>
  %c1 = arith.constant 1 : index
  %init = tensor.empty() : tensor<64x64xf32>
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%t = %init) -> tensor<64x64xf32> {
    %f = arith.constant 1.0 : f32
    %filled = linalg.fill ins(%f : f32) outs(%t : tensor<64x64xf32>) -> tensor<64x64xf32>
    scf.yield %filled : tensor<64x64xf32>
  }
  return %a, %b, %l : tensor<7x9xf32>, tensor<?x64xf32>, tensor<64x64xf32>
}

// -----

// An argument inserted into a padded buffer becomes a copy into the
// buffer's slice, shared out like the rest; a small one stays an insert
// (a memref.copy once bufferized).
// CHECK-LABEL: func.func @argument_into_padding
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>, %[[SMALL:.*]]: tensor<2x2xf32>
// CHECK: %[[PADDED:.*]] = scf.forall
// CHECK:   linalg.fill
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[PADDED]][0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1]
// CHECK: %[[COPY:.*]] = scf.forall (%[[C:.*]]) in (3) shared_outs(%[[OUT:.*]] = %[[SLICE]])
// CHECK:   %[[FROM:.*]] = tensor.extract_slice %[[X]][0, %[[C]], 0, 0] [1, 1, 8, 8]
// CHECK:   linalg.copy ins(%[[FROM]] : tensor<1x1x8x8xf32>)
// CHECK: %[[INTO:.*]] = tensor.insert_slice %[[COPY]] into %[[PADDED]][0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1]
// CHECK: tensor.insert_slice %[[SMALL]] into %{{.*}}[0, 0] [2, 2] [1, 1]
func.func @argument_into_padding(%x: tensor<1x3x8x8xf32>, %small: tensor<2x2xf32>)
    -> (tensor<1x3x10x10xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x10x10xf32>
  %padded = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x10x10xf32>) -> tensor<1x3x10x10xf32>
  %r = tensor.insert_slice %x into %padded[0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1]
      : tensor<1x3x8x8xf32> into tensor<1x3x10x10xf32>
  %e2 = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = tensor.insert_slice %small into %z[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x4xf32>
  return %r, %s : tensor<1x3x10x10xf32>, tensor<4x4xf32>
}

// -----

// Rotary embeddings' rotate_half: the negated second half and the first
// half of a query concatenated. Bufferization would give each half a
// buffer of its own (the negation's new tensor, the slice) and copy it
// into the concatenation with one thread's strided memref.copy: both
// become copies into the destination's slice, shared out, the negation
// computed in the copy's loop. A value computed into the destination's own
// slice (the fill) stays an insert.
// CHECK-LABEL: func.func @rotate_half
// CHECK-SAME: (%[[X:.*]]: tensor<4x8x32xf32>
// CHECK: %[[FIRST:.*]] = tensor.extract_slice %[[X]][0, 0, 0] [4, 8, 16] [1, 1, 1]
// CHECK-NOT: linalg
// CHECK: %[[TO0:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0] [4, 8, 16] [1, 1, 1]
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[TO0]])
// CHECK:   arith.negf
// CHECK:   linalg.copy
// CHECK: %[[INTO:.*]] = tensor.insert_slice
// CHECK: %[[TO1:.*]] = tensor.extract_slice %[[INTO]][0, 0, 16] [4, 8, 16] [1, 1, 1]
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[TO1]])
// CHECK:   linalg.copy
// CHECK: tensor.insert_slice %{{.*}} into %[[INTO]][0, 0, 16] [4, 8, 16] [1, 1, 1]
// CHECK-NOT: linalg.copy
// CHECK: linalg.fill
// CHECK-NOT: linalg.copy
// CHECK: return
#r3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @rotate_half(%x: tensor<4x8x32xf32>) -> (tensor<4x8x32xf32>, tensor<4x8x32xf32>) {
  %first = tensor.extract_slice %x[0, 0, 0] [4, 8, 16] [1, 1, 1] : tensor<4x8x32xf32> to tensor<4x8x16xf32>
  %second = tensor.extract_slice %x[0, 0, 16] [4, 8, 16] [1, 1, 1] : tensor<4x8x32xf32> to tensor<4x8x16xf32>
  %e = tensor.empty() : tensor<4x8x16xf32>
  %neg = linalg.generic {indexing_maps = [#r3, #r3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%second : tensor<4x8x16xf32>) outs(%e : tensor<4x8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4x8x16xf32>
  %cat = tensor.empty() : tensor<4x8x32xf32>
  %c0 = tensor.insert_slice %neg into %cat[0, 0, 0] [4, 8, 16] [1, 1, 1] : tensor<4x8x16xf32> into tensor<4x8x32xf32>
  %c1 = tensor.insert_slice %first into %c0[0, 0, 16] [4, 8, 16] [1, 1, 1] : tensor<4x8x16xf32> into tensor<4x8x32xf32>
  %zero = arith.constant 0.0 : f32
  %other = tensor.empty() : tensor<4x8x32xf32>
  %half = tensor.extract_slice %other[0, 0, 0] [4, 8, 16] [1, 1, 1] : tensor<4x8x32xf32> to tensor<4x8x16xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%half : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %f = tensor.insert_slice %filled into %other[0, 0, 0] [4, 8, 16] [1, 1, 1] : tensor<4x8x16xf32> into tensor<4x8x32xf32>
  return %c1, %f : tensor<4x8x32xf32>, tensor<4x8x32xf32>
}

// -----

// A blocked scale read at row floordiv 32: tiles of 96 / 4 = 24 rows would
// start inside a block, and the tiled op, which keeps the map, would read
// block 0 for rows 24 to 47 (int4 weights of 96 input channels and more
// came out wrong in qdq-run). The chunks grow to whole blocks: 32 rows.
#rows = affine_map<(d0, d1) -> (d0, d1)>
#block = affine_map<(d0, d1) -> (d0 floordiv 32, d1)>
// CHECK-LABEL: func.func @blocked_scale
// CHECK: scf.forall (%{{.*}}) = (0) to (96) step (32)
func.func @blocked_scale(%q: tensor<96x16xf32>, %s: tensor<3x16xf32>) -> tensor<96x16xf32> {
  %e = tensor.empty() : tensor<96x16xf32>
  %r = linalg.generic {indexing_maps = [#rows, #block, #rows],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<96x16xf32>, tensor<3x16xf32>) outs(%e : tensor<96x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<96x16xf32>
  return %r : tensor<96x16xf32>
}

// -----

// Blocks as large as the loop leave one chunk: the op stays as it is.
#rows2 = affine_map<(d0, d1) -> (d0, d1)>
#whole = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
// CHECK-LABEL: func.func @one_block
// CHECK-NOT: scf.forall
func.func @one_block(%q: tensor<96x16xf32>, %s: tensor<1x16xf32>) -> tensor<96x16xf32> {
  %e = tensor.empty() : tensor<96x16xf32>
  %r = linalg.generic {indexing_maps = [#rows2, #whole, #rows2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<96x16xf32>, tensor<1x16xf32>) outs(%e : tensor<96x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<96x16xf32>
  return %r : tensor<96x16xf32>
}

// -----

// A depthwise convolution's activation computes, in each chunk of its rows,
// the convolution's rows it reads (the input's rows with their halo), and
// their bias broadcast: one loop, no op left outside it.
// CHECK-LABEL: func.func @depthwise_activation
// CHECK-NOT: linalg
// CHECK: scf.forall (%[[I:.*]]) = (0) to (8) step (2)
// CHECK:   tensor.extract_slice %{{.*}}[0, %[[I]], 0, 0] [1, 4, 10, 16]
// CHECK:   linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<16xf32>) outs(%{{.*}} : tensor<1x2x8x16xf32>)
// CHECK:   linalg.depthwise_conv_2d_nhwc_hwc
// CHECK-SAME: outs(%{{.*}} : tensor<1x2x8x16xf32>)
// CHECK:   linalg.generic
// CHECK:     arith.minimumf
// CHECK:   tensor.parallel_insert_slice
// CHECK-NOT: linalg
// CHECK: return
func.func @depthwise_activation(%x: tensor<1x10x10x16xf32>, %w: tensor<3x3x16xf32>, %b: tensor<16xf32>) -> tensor<1x8x8x16xf32> {
  %e = tensor.empty() : tensor<1x8x8x16xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<16xf32>) outs(%e : tensor<1x8x8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x8x8x16xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x10x16xf32>, tensor<3x3x16xf32>) outs(%init : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e2 = tensor.empty() : tensor<1x8x8x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x8x8x16xf32>) outs(%e2 : tensor<1x8x8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %lo = arith.maximumf %v, %zero : f32
    %hi = arith.minimumf %lo, %six : f32
    linalg.yield %hi : f32
  } -> tensor<1x8x8x16xf32>
  return %y : tensor<1x8x8x16xf32>
}

// -----

// A producer something else reads too is computed whole, and shared out on
// its own.
// CHECK-LABEL: func.func @shared_producer
// CHECK: scf.forall
// CHECK:   math.exp
// CHECK: scf.forall
// CHECK:   arith.addf
func.func @shared_producer(%x: tensor<1x10x32xf32>) -> (tensor<1x10x32xf32>, tensor<1x10x32xf32>) {
  %e = tensor.empty() : tensor<1x10x32xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x10x32xf32>) outs(%e : tensor<1x10x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<1x10x32xf32>
  %e2 = tensor.empty() : tensor<1x10x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<1x10x32xf32>) outs(%e2 : tensor<1x10x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<1x10x32xf32>
  return %y, %p : tensor<1x10x32xf32>, tensor<1x10x32xf32>
}

// -----

// A consumer too small to share out leaves its producer (a layer norm's
// sum over the features) shared out on its own, not fused into a loop that
// runs on one thread.
// CHECK-LABEL: func.func @small_consumer
// CHECK: scf.forall
// CHECK:   arith.addf
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<1x10xf32>)
// CHECK:   math.rsqrt
func.func @small_consumer(%x: tensor<1x10x32xf32>) -> tensor<1x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x10xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x10xf32>) -> tensor<1x10xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<1x10x32xf32>) outs(%init : tensor<1x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<1x10xf32>
  %e2 = tensor.empty() : tensor<1x10xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<1x10xf32>) outs(%e2 : tensor<1x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.rsqrt %a : f32
    linalg.yield %r : f32
  } -> tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}

// -----

// A producer whose result linalg cannot slice (a sum kept as a unit
// dimension, written at a constant index) is shared out on its own, with
// the fill it starts from; no chunk computes it whole.
// CHECK-LABEL: func.func @keepdims_producer
// CHECK: scf.forall
// CHECK:   linalg.fill
// CHECK-NOT: scf.forall (
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<2x16x32xf32>)
// CHECK: scf.forall
// CHECK:   math.rsqrt
// CHECK-NOT: arith.addf
// CHECK: return
func.func @keepdims_producer(%x: tensor<8x16x32xf32>) -> tensor<8x16x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16x1xf32>) -> tensor<8x16x1xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<8x16x32xf32>) outs(%init : tensor<8x16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8x16x1xf32>
  %e2 = tensor.empty() : tensor<8x16x1xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sum : tensor<8x16x1xf32>) outs(%e2 : tensor<8x16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.rsqrt %a : f32
    linalg.yield %r : f32
  } -> tensor<8x16x1xf32>
  return %y : tensor<8x16x1xf32>
}

// -----

// A softmax over rows: the mask's sum, the maximum, the exponentials, their
// sum and the quotient are one loop, each chunk computing its rows of all
// five (and of the fills the reductions start from) once, though the
// masked scores and the exponentials are each read twice.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: linalg
// CHECK: scf.forall (%[[I:.*]]) = (0) to (8) step (2)
// CHECK:   linalg.generic
// CHECK:     arith.addf
// CHECK:   linalg.fill
// CHECK:   linalg.generic
// CHECK:     arith.maximumf
// CHECK:   linalg.generic
// CHECK:     math.exp
// CHECK:   linalg.fill
// CHECK:   linalg.generic
// CHECK:     arith.addf
// CHECK:   linalg.generic
// CHECK:     arith.divf
// CHECK:   tensor.parallel_insert_slice
// CHECK-NOT: linalg
// CHECK: return
// ONCE-LABEL: func.func @softmax
// ONCE: scf.forall
// ONCE-COUNT-7: = linalg.{{generic|fill}}
// ONCE-NOT: = linalg.
// ONCE: tensor.parallel_insert_slice
func.func @softmax(%x: tensor<8x4x16xf32>, %mask: tensor<8x16xf32>) -> tensor<8x4x16xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x4x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mask : tensor<8x4x16xf32>, tensor<8x16xf32>) outs(%e0 : tensor<8x4x16xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %v = arith.addf %a, %m : f32
    linalg.yield %v : f32
  } -> tensor<8x4x16xf32>
  %e1 = tensor.empty() : tensor<8x4xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<8x4x16xf32>) outs(%f1 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.maximumf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<8x4xf32>
  %e2 = tensor.empty() : tensor<8x4x16xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %max : tensor<8x4x16xf32>, tensor<8x4xf32>) outs(%e2 : tensor<8x4x16xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<8x4x16xf32>
  %e3 = tensor.empty() : tensor<8x4xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%exp : tensor<8x4x16xf32>) outs(%f3 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<8x4xf32>
  %e4 = tensor.empty() : tensor<8x4x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%exp, %sum : tensor<8x4x16xf32>, tensor<8x4xf32>) outs(%e4 : tensor<8x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.divf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<8x4x16xf32>
  return %y : tensor<8x4x16xf32>
}

// -----

// Where the exponentials are also a result, the group closes before them:
// one loop computes the masked scores, their maximum and the exponentials
// (its result); another the sum and the quotient.
// CHECK-LABEL: func.func @exponentials_returned
// CHECK-NOT: linalg
// CHECK: scf.forall
// CHECK:     arith.maximumf
// CHECK:     math.exp
// CHECK:   tensor.parallel_insert_slice
// CHECK-NOT: linalg
// CHECK: scf.forall
// CHECK-NOT: math.exp
// CHECK:     arith.divf
// CHECK:   tensor.parallel_insert_slice
// CHECK-NOT: linalg
// CHECK: return
func.func @exponentials_returned(%x: tensor<8x4x16xf32>, %mask: tensor<8x16xf32>) -> (tensor<8x4x16xf32>, tensor<8x4x16xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x4x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mask : tensor<8x4x16xf32>, tensor<8x16xf32>) outs(%e0 : tensor<8x4x16xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %v = arith.addf %a, %m : f32
    linalg.yield %v : f32
  } -> tensor<8x4x16xf32>
  %e1 = tensor.empty() : tensor<8x4xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<8x4x16xf32>) outs(%f1 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.maximumf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<8x4xf32>
  %e2 = tensor.empty() : tensor<8x4x16xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %max : tensor<8x4x16xf32>, tensor<8x4xf32>) outs(%e2 : tensor<8x4x16xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<8x4x16xf32>
  %e3 = tensor.empty() : tensor<8x4xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%exp : tensor<8x4x16xf32>) outs(%f3 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<8x4xf32>
  %e4 = tensor.empty() : tensor<8x4x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%exp, %sum : tensor<8x4x16xf32>, tensor<8x4xf32>) outs(%e4 : tensor<8x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.divf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<8x4x16xf32>
  return %y, %exp : tensor<8x4x16xf32>, tensor<8x4x16xf32>
}

// -----

// A member that writes its result transposed (read in place by the
// consumer) is cut along another loop than its rows: a row-wise producer
// it reads would be needed whole by every chunk, so it is shared out on
// its own.
// CHECK-LABEL: func.func @transposed_member
// CHECK: scf.forall
// CHECK:   linalg.fill
// CHECK:   arith.addf
// CHECK: scf.forall
// CHECK-NOT: linalg.fill
// CHECK:   arith.mulf
// CHECK: return
func.func @transposed_member(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64xf32>) -> tensor<64xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<64x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %e1 = tensor.empty() : tensor<64x64xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(a, b) -> (b, a)>, affine_map<(a, b) -> (a)>, affine_map<(a, b) -> (b, a)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %p : tensor<64x64xf32>, tensor<64xf32>) outs(%e1 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}

// -----

// A max pooling, a reduction no element-wise op follows, is cut along its
// rows with the -inf fill it starts from: each chunk fills its own rows.
// CHECK-LABEL: func.func @pooling_with_fill
// CHECK: scf.forall
// CHECK: linalg.fill
// CHECK-SAME: tensor<1x4x28x16xf32>
// CHECK-NOT: scf.forall (
// CHECK: linalg.pooling_nhwc_max
// CHECK-NOT: scf.forall (
func.func @pooling_with_fill(%x: tensor<1x33x57x16xf32>) -> tensor<1x16x28x16xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x16x28x16xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<1x16x28x16xf32>) -> tensor<1x16x28x16xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %y = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %window : tensor<1x33x57x16xf32>, tensor<3x3xf32>) outs(%init : tensor<1x16x28x16xf32>) -> tensor<1x16x28x16xf32>
  return %y : tensor<1x16x28x16xf32>
}
