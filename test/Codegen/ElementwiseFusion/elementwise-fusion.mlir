// Element-wise producers fuse into consumers that read each of their
// elements once; a contraction or a broadcast keeps its producer apart, so
// the producer's math runs once per element, not once per reuse.
// RUN: qdq-opt %s --qdq-elementwise-fusion --split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: math.erf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
func.func @chain(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.erf %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%g, %y : tensor<4x8xf32>, tensor<4x8xf32>)
      outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// A matmul reads its left operand once per output column: erf stays in its
// own op, computed 4x8 times rather than 4x8x16.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @matmul
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: math.erf
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-NOT: math.erf
func.func @matmul(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>,
                  %acc: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.erf %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [#a, #b, #c],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %w : tensor<4x8xf32>, tensor<8x16xf32>)
      outs(%acc : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %o, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}

// -----

// A row-wise reduction reads each element once: the producer fuses.
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @reduce
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: math.exp
// CHECK-NOT: linalg.generic
func.func @reduce(%x: tensor<4x8xf32>, %acc: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#in, #in],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#in, #out],
                       iterator_types = ["parallel", "reduction"]}
      ins(%g : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %o, %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A broadcast consumer would recompute the producer per copy.
#row = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#vec = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @broadcast
// CHECK: math.tanh
// CHECK: linalg.generic
// CHECK-NOT: math.tanh
func.func @broadcast(%x: tensor<8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#vec, #vec],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#row, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%g, %y : tensor<8xf32>, tensor<4x8xf32>)
      outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// A padded element-wise result (a convolution's input) is computed straight
// into the interior of the padded buffer, instead of being copied there.
// Only the border is filled: the rows above and below, then the columns
// left and right of the interior rows.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @pad_of_producer
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<1x2x6x6xf32>
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[EMPTY]][0, 0, 0, 0] [1, 2, 1, 6] [1, 1, 1, 1]
// CHECK: %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[S0]] : tensor<1x2x1x6xf32>)
// CHECK: %[[P0:.*]] = tensor.insert_slice %[[F0]] into %[[EMPTY]][0, 0, 0, 0] [1, 2, 1, 6]
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[P0]][0, 0, 5, 0] [1, 2, 1, 6]
// CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[S1]] : tensor<1x2x1x6xf32>)
// CHECK: %[[P1:.*]] = tensor.insert_slice %[[F1]] into %[[P0]][0, 0, 5, 0] [1, 2, 1, 6]
// CHECK: %[[S2:.*]] = tensor.extract_slice %[[P1]][0, 0, 1, 0] [1, 2, 4, 1]
// CHECK: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[S2]] : tensor<1x2x4x1xf32>)
// CHECK: %[[P2:.*]] = tensor.insert_slice %[[F2]] into %[[P1]][0, 0, 1, 0] [1, 2, 4, 1]
// CHECK: %[[S3:.*]] = tensor.extract_slice %[[P2]][0, 0, 1, 5] [1, 2, 4, 1]
// CHECK: %[[F3:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[S3]] : tensor<1x2x4x1xf32>)
// CHECK: %[[P3:.*]] = tensor.insert_slice %[[F3]] into %[[P2]][0, 0, 1, 5] [1, 2, 4, 1]
// CHECK: %[[INNER:.*]] = tensor.extract_slice %[[P3]][0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} outs(%[[INNER]] : tensor<1x2x4x4xf32>)
// CHECK: arith.maximumf
// CHECK: tensor.insert_slice %[[RELU]] into %[[P3]][0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
// CHECK-NOT: linalg.fill
// CHECK-NOT: tensor.pad
func.func @pad_of_producer(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4],
                       iterator_types = ["parallel", "parallel", "parallel",
                                         "parallel"]}
      ins(%x : tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
  return %p : tensor<1x2x6x6xf32>
}

// -----

// A producer that something else reads too (a residual, or calibration's
// range of it) writes into the padded buffer all the same, and the other
// reader reads that interior: computed once, copied never. The producer is
// computed where it was, and the insert into the padded tensor comes after
// the other readers, so that bufferization sees no write between the
// producer and them (else it copies the producer's result out).
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @pad_of_shared_producer
// CHECK: %[[INNER:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} ins(%arg0 : {{.*}}) outs(%[[INNER]] : tensor<1x2x4x4xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[RELU]] : tensor<1x2x4x4xf32>)
// CHECK: arith.addf
// CHECK: %[[PADDED:.*]] = tensor.insert_slice %[[RELU]] into
// CHECK: return %[[PADDED]], %[[SUM]], %[[RELU]]
// CHECK-NOT: tensor.pad
func.func @pad_of_shared_producer(%x: tensor<1x2x4x4xf32>)
    -> (tensor<1x2x6x6xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4],
                       iterator_types = ["parallel", "parallel", "parallel",
                                         "parallel"]}
      ins(%x : tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  %s = linalg.generic {indexing_maps = [#id4, #id4],
                       iterator_types = ["parallel", "parallel", "parallel",
                                         "parallel"]}
      ins(%r : tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
  return %p, %s, %r : tensor<1x2x6x6xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Two pads of one shared producer: the first is fused, the second copies
// from it (a second fusion would compute the producer twice).
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @two_pads_of_shared_producer
// CHECK: %[[RELU:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
// CHECK: tensor.pad %[[RELU]] low[0, 0, 2, 2]
func.func @two_pads_of_shared_producer(%x: tensor<1x2x4x4xf32>)
    -> (tensor<1x2x6x6xf32>, tensor<1x2x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4],
                       iterator_types = ["parallel", "parallel", "parallel",
                                         "parallel"]}
      ins(%x : tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
  %q = tensor.pad %r low[0, 0, 2, 2] high[0, 0, 2, 2] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x8x8xf32>
  return %p, %q : tensor<1x2x6x6xf32>, tensor<1x2x8x8xf32>
}

// -----

// A pad of the network's input (no element-wise producer) becomes an
// element-wise copy written straight into the padded buffer's interior,
// which runs on every thread, instead of a strided memref.copy on one.
// CHECK-LABEL: func.func @pad_of_argument
// CHECK: %[[INNER:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
// CHECK: %[[COPY:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x2x4x4xf32>) outs(%[[INNER]] : tensor<1x2x4x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]]
// CHECK: tensor.insert_slice %[[COPY]] into %{{.*}}[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
// CHECK-NOT: tensor.pad
func.func @pad_of_argument(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
  return %p : tensor<1x2x6x6xf32>
}
