// A function whose samples are computed apart runs in groups: a private
// copy of its body for one group, called in a loop over the batch. Anything
// that reads across samples leaves the function whole.
// RUN: qdq-opt %s --qdq-split-batch=samples=2 --split-input-file | FileCheck %s
// RUN: qdq-opt %s --qdq-split-batch=cache-bytes=9000 --split-input-file | FileCheck %s --check-prefix=CACHE
// RUN: qdq-opt %s --qdq-split-batch="samples=2 explain=true" --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHY
// RUN: qdq-opt %s --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: qdq-opt %s --qdq-split-batch=cache-bytes=1100 --split-input-file | FileCheck %s --check-prefix=STAGES
// RUN: qdq-opt %s --qdq-split-batch="cache-bytes=1100 explain=true" --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHY-STAGES
// RUN: not qdq-opt %s --qdq-split-batch=samples=-1 --split-input-file 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// OFF-NOT: scf.for
// NEGATIVE: error: qdq-split-batch: samples and cache-bytes must not be negative

#id4 = affine_map<(n, c, h, w) -> (n, c, h, w)>

// A convolution whose output starts as the bias broadcast over the batch:
// the group's copy broadcasts the bias over its own samples.
// CHECK-LABEL: func.func private @conv_relu_samples
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x10x10xf32>) -> tensor<2x8x8x8xf32>
// CHECK-NOT: tensor<4x
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x8x8x8xf32>
// CHECK: %[[B:.*]] = linalg.broadcast ins(%{{.*}} : tensor<8xf32>) outs(%[[E]] : tensor<2x8x8x8xf32>) dimensions = [0, 2, 3]
// CHECK: %[[C:.*]] = linalg.conv_2d_nchw_fchw ins(%[[X]], %{{.*}} : tensor<2x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%[[B]] : tensor<2x8x8x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[C]] : tensor<2x8x8x8xf32>)
// CHECK: return %[[R]] : tensor<2x8x8x8xf32>
// CHECK-LABEL: func.func @conv_relu
// CHECK-SAME: (%[[XS:.*]]: tensor<4x3x10x10xf32>) -> tensor<4x8x8x8xf32>
// CHECK-DAG: %[[OUT:.*]] = tensor.empty() : tensor<4x8x8x8xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[LOOP:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[C4]] step %[[C2]] iter_args(%[[ACC:.*]] = %[[OUT]])
// CHECK: %[[IN:.*]] = tensor.extract_slice %[[XS]][%[[I]], 0, 0, 0] [2, 3, 10, 10] [1, 1, 1, 1]
// CHECK: %[[G:.*]] = func.call @conv_relu_samples(%[[IN]])
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[G]] into %[[ACC]][%[[I]], 0, 0, 0] [2, 8, 8, 8] [1, 1, 1, 1]
// CHECK: scf.yield %[[INS]]
// CHECK: return %[[LOOP]]
// The largest op (the ReLU: 2048 bytes in and 2048 out a sample) fits two
// samples in 9000 bytes.
// CACHE-LABEL: func.func private @conv_relu_samples
// CACHE-SAME: tensor<2x3x10x10xf32>
// WHY: remark: the batch of @conv_relu runs in groups of 2 (4 samples, 4096 bytes a sample in its largest op)
func.func @conv_relu(%x: tensor<4x3x10x10xf32>) -> tensor<4x8x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<8x3x3x3xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x8x8xf32>
  %bias = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<4x8x8x8xf32>) dimensions = [0, 2, 3]
  %conv = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<4x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%bias : tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32>
  %e2 = tensor.empty() : tensor<4x8x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv : tensor<4x8x8x8xf32>) outs(%e2 : tensor<4x8x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x8x8x8xf32>
  return %relu : tensor<4x8x8x8xf32>
}

// -----

// Attention as PyTorch exports it: [sequence, batch, features], the
// sequence and batch merged for the projection (samples inside the merged
// dimension, 6 x 4 rows), then split again.
// CHECK-LABEL: func.func private @projection_samples
// CHECK-SAME: (%{{.*}}: tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x6x8xf32>) outs(%{{.*}} : tensor<6x2x8xf32>)
// CHECK: tensor.collapse_shape {{.*}} into tensor<12x8xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<12x8xf32>, tensor<8x8xf32>)
// CHECK: tensor.expand_shape {{.*}} output_shape [6, 2, 8] : tensor<12x8xf32> into tensor<6x2x8xf32>
// CHECK-LABEL: func.func @projection
// CHECK: scf.for
// WHY: remark: the batch of @projection runs in groups of 2
func.func @projection(%x: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %w = arith.constant dense<0.25> : tensor<8x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x4x8xf32>
  %t = linalg.transpose ins(%x : tensor<4x6x8xf32>) outs(%e : tensor<6x4x8xf32>) permutation = [1, 0, 2]
  %rows = tensor.collapse_shape %t [[0, 1], [2]] : tensor<6x4x8xf32> into tensor<24x8xf32>
  %e2 = tensor.empty() : tensor<24x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<24x8xf32>) -> tensor<24x8xf32>
  %p = linalg.matmul ins(%rows, %w : tensor<24x8xf32>, tensor<8x8xf32>) outs(%z : tensor<24x8xf32>) -> tensor<24x8xf32>
  %s = tensor.expand_shape %p [[0, 1], [2]] output_shape [6, 4, 8] : tensor<24x8xf32> into tensor<6x4x8xf32>
  %e3 = tensor.empty() : tensor<4x6x8xf32>
  %back = linalg.transpose ins(%s : tensor<6x4x8xf32>) outs(%e3 : tensor<4x6x8xf32>) permutation = [1, 0, 2]
  return %back : tensor<4x6x8xf32>
}

// -----

// A class token broadcast over the batch and put before each sample's
// patches, then the token's row taken back by a gather (tensor.extract at
// the loop's sample index): per sample.
#bcast = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#scalar = affine_map<(d0, d1) -> ()>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func private @class_token_samples
// CHECK-SAME: (%[[P:.*]]: tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[TOK:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x1x4xf32>)
// CHECK: %[[SEQ:.*]] = tensor.insert_slice %[[TOK]] into %{{.*}}[0, 0, 0] [2, 1, 4] [1, 1, 1] : tensor<2x1x4xf32> into tensor<2x4x4xf32>
// CHECK: %[[ALL:.*]] = tensor.insert_slice %[[P]] into %[[SEQ]][0, 1, 0] [2, 3, 4] [1, 1, 1] : tensor<2x3x4xf32> into tensor<2x4x4xf32>
// CHECK: linalg.generic
// CHECK: tensor.extract %[[ALL]]
// CHECK-SAME: tensor<2x4x4xf32>
// CHECK-LABEL: func.func @class_token
// CHECK: scf.for
// WHY: remark: the batch of @class_token runs in groups of 2
func.func @class_token(%patches: tensor<4x3x4xf32>) -> tensor<4x4xf32> {
  %token = arith.constant dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
  %row = arith.constant dense<0> : tensor<i64>
  %e = tensor.empty() : tensor<4x1x4xf32>
  %tokens = linalg.generic {indexing_maps = [#bcast, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%token : tensor<1x1x4xf32>) outs(%e : tensor<4x1x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x1x4xf32>
  %seq0 = tensor.empty() : tensor<4x4x4xf32>
  %seq1 = tensor.insert_slice %tokens into %seq0[0, 0, 0] [4, 1, 4] [1, 1, 1] : tensor<4x1x4xf32> into tensor<4x4x4xf32>
  %seq = tensor.insert_slice %patches into %seq1[0, 1, 0] [4, 3, 4] [1, 1, 1] : tensor<4x3x4xf32> into tensor<4x4x4xf32>
  %e2 = tensor.empty() : tensor<4x4xf32>
  %first = linalg.generic {indexing_maps = [#scalar, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%row : tensor<i64>) outs(%e2 : tensor<4x4xf32>) {
  ^bb0(%r: i64, %o: f32):
    %n = linalg.index 0 : index
    %s = arith.index_cast %r : i64 to index
    %f = linalg.index 1 : index
    %v = tensor.extract %seq[%n, %s, %f] : tensor<4x4x4xf32>
    linalg.yield %v : f32
  } -> tensor<4x4xf32>
  return %first : tensor<4x4xf32>
}

// -----

// A sum over the batch reads across samples.
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d1)>
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @sum_over_batch
// CHECK-NOT: scf.for
// WHY: remark: the batch of @sum_over_batch runs whole: this op reduces over samples
func.func @sum_over_batch(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// A constant as large as the batch, with other values for each sample:
// the group would not know which rows are its own.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @per_sample_constant
// CHECK-NOT: scf.for
// WHY: remark: the batch of @per_sample_constant runs whole: this op reads a tensor that differs from sample to sample but does not depend on them
func.func @per_sample_constant(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %c = arith.constant dense<[[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]]> : tensor<4x2xf32>
  %e = tensor.empty() : tensor<4x2xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %c : tensor<4x2xf32>, tensor<4x2xf32>) outs(%e : tensor<4x2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// The sample's index in the computation.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @sample_index
// CHECK-NOT: scf.for
// WHY: remark: the batch of @sample_index runs whole: this op computes with the sample's index
func.func @sample_index(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %e = tensor.empty() : tensor<4x2xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x2xf32>) outs(%e : tensor<4x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = linalg.index 0 : index
    %i = arith.index_cast %n : index to i32
    %f = arith.sitofp %i : i32 to f32
    %r = arith.addf %a, %f : f32
    linalg.yield %r : f32
  } -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Some of the samples, a split of the batch, samples reversed: across.
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @first_two
// CHECK-NOT: scf.for
// WHY: remark: the batch of @first_two runs whole: this op takes some of the samples
func.func @first_two(%x: tensor<4x2xf32>) -> tensor<2x2xf32> {
  %s = tensor.extract_slice %x[0, 0] [2, 2] [1, 1] : tensor<4x2xf32> to tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}

// -----

// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @pairs
// CHECK-NOT: scf.for
// WHY: remark: the batch of @pairs runs whole: this op splits the samples apart
func.func @pairs(%x: tensor<4x2xf32>) -> tensor<2x4xf32> {
  %s = tensor.expand_shape %x [[0, 1], [2]] output_shape [2, 2, 2] : tensor<4x2xf32> into tensor<2x2x2xf32>
  %c = tensor.collapse_shape %s [[0], [1, 2]] : tensor<2x2x2xf32> into tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}

// -----

#rev = affine_map<(d0, d1) -> (3 - d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @reversed
// CHECK-NOT: scf.for
// WHY: remark: the batch of @reversed runs whole: this op reads the samples through an index expression
func.func @reversed(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %e = tensor.empty() : tensor<4x2xf32>
  %y = linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x2xf32>) outs(%e : tensor<4x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Two layouts of the samples along one loop: [batch x 2] and [2 x batch]
// rows have the same size but hold other samples at one index.
#id = affine_map<(d0) -> (d0)>
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @two_layouts
// CHECK-NOT: scf.for
// WHY: remark: the batch of @two_layouts runs whole: this op reads samples along two loops
func.func @two_layouts(%x: tensor<4x2xf32>, %y: tensor<4x2xf32>) -> tensor<8xf32> {
  %a = tensor.collapse_shape %x [[0, 1]] : tensor<4x2xf32> into tensor<8xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %t = linalg.transpose ins(%y : tensor<4x2xf32>) outs(%e : tensor<2x4xf32>) permutation = [1, 0]
  %b = tensor.collapse_shape %t [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// A result that does not depend on the samples (calibration's size of an
// observed tensor) is computed once, outside the loop; the samples
// returned as they came need no loop at all.
// CHECK-NOT: func.func private @size_result_samples
// CHECK-LABEL: func.func @size_result
// CHECK-SAME: (%[[X:.*]]: tensor<4x2xf32>)
// CHECK: %[[SIZE:.*]] = arith.constant dense<8> : tensor<i64>
// CHECK-NOT: scf.for
// CHECK: return %[[X]], %[[SIZE]]
// WHY: remark: the batch of @size_result runs whole: it computes nothing per sample
func.func @size_result(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<i64>) {
  %size = arith.constant dense<8> : tensor<i64>
  return %x, %size : tensor<4x2xf32>, tensor<i64>
}

// -----

// Nothing per sample to return.
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @weight_result
// CHECK-NOT: scf.for
// WHY: remark: the batch of @weight_result runs whole: this op returns nothing computed per sample
func.func @weight_result(%x: tensor<4x2xf32>) -> tensor<2xf32> {
  %w = arith.constant dense<1.0> : tensor<2xf32>
  return %w : tensor<2xf32>
}

// -----

// A result whose samples are interleaved with another dimension.
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @interleaved_result
// CHECK-NOT: scf.for
// WHY: remark: the batch of @interleaved_result runs whole: this op returns samples interleaved with another dimension
func.func @interleaved_result(%x: tensor<4x2xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x2xf32>) outs(%e : tensor<2x4xf32>) permutation = [1, 0]
  %c = tensor.collapse_shape %t [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// An op the analysis does not know (here: a function call).
// CHECK-NOT: _samples
// CHECK-LABEL: func.func @unknown_op
// CHECK-NOT: scf.for
func.func private @f(tensor<4x2xf32>) -> tensor<4x2xf32>
// WHY: remark: the batch of @unknown_op runs whole: this op is not known to keep samples apart
func.func @unknown_op(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %y = func.call @f(%x) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Dynamic shapes (qdq-run specializes them first).
// CHECK-NOT: _samples
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT: scf.for
// WHY: remark: the batch of @dynamic runs whole: it has an argument that is not a tensor of static shape with a batch
func.func @dynamic(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  return %x : tensor<4x?xf32>
}

// -----

// Calibration's histograms count each row apart: rows that are the samples
// keep them apart, one histogram per sample, inserted like any result.
// CHECK-LABEL: func.func private @histogram_samples(
// CHECK-SAME: %{{.*}}: tensor<2x8x16xf32>) -> tensor<2x2048xi64>
// CHECK: quant_qdq.histogram %{{.*}} bins 2048 bin_scale 1.000000e+01 : tensor<2x8x16xf32>
// CHECK-LABEL: func.func @histogram(
// CHECK: scf.for
// CHECK: func.call @histogram_samples
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 0] [2, 2048] [1, 1] : tensor<2x2048xi64> into tensor<4x2048xi64>
// WHY: remark: the batch of @histogram runs in groups of 2
func.func @histogram(%x: tensor<4x8x16xf32>) -> tensor<4x2048xi64> {
  %h = quant_qdq.histogram %x bins 2048 bin_scale 10.0 : tensor<4x8x16xf32>
  return %h : tensor<4x2048xi64>
}

// -----

// Rows that are not the samples ([sequence, batch, ...]) count across them.
// CHECK-NOT: _samples
// CHECK-LABEL: func.func @histogram_across
// CHECK-NOT: scf.for
// WHY: remark: the batch of @histogram_across runs whole: this op counts rows that are not samples
func.func @histogram_across(%x: tensor<4x8x16xf32>) -> tensor<8x2048xi64> {
  %e = tensor.empty() : tensor<8x4x16xf32>
  %t = linalg.transpose ins(%x : tensor<4x8x16xf32>) outs(%e : tensor<8x4x16xf32>) permutation = [1, 0, 2]
  %h = quant_qdq.histogram %t bins 2048 bin_scale 10.0 : tensor<8x4x16xf32>
  return %h : tensor<8x2048xi64>
}

// -----

// Groups grow along the function: each op may run in the largest group
// that its tensors and those of every op after it fit, and a stage starts
// where the weights it then reads less often outweigh the tensors passed
// to it. With 1100 bytes, the ReLU (1024 bytes a sample) runs a sample at a
// time; the first product (544 bytes, 4 KiB of weights) two at a time, for
// 512 bytes of ReLU a sample passed on; the second (160 bytes, 1 KiB of
// weights) the whole batch, for 32 bytes passed on.
// CHECK-LABEL: func.func private @mlp_samples(
// CHECK-SAME: tensor<2x128xf32>
// STAGES-LABEL: func.func private @mlp_samples_0
// STAGES-SAME: (%{{.*}}: tensor<1x128xf32>) -> tensor<1x128xf32>
// STAGES-LABEL: func.func private @mlp_samples_1
// STAGES-SAME: (%{{.*}}: tensor<2x128xf32>) -> tensor<2x8xf32>
// STAGES: linalg.fill {{.*}} -> tensor<2x8xf32>
// STAGES-LABEL: func.func private @mlp_samples_2
// STAGES-SAME: (%{{.*}}: tensor<4x8xf32>) -> tensor<4x32xf32>
// STAGES-LABEL: func.func @mlp
// STAGES-SAME: (%[[X:.*]]: tensor<4x128xf32>)
// STAGES: %[[RELU:.*]] = scf.for %[[I:[a-z0-9_]+]] =
// STAGES: tensor.extract_slice %[[X]][%[[I]], 0] [1, 128] [1, 1]
// STAGES: func.call @mlp_samples_0
// STAGES: %[[HIDDEN:.*]] = scf.for %[[J:[a-z0-9_]+]] =
// STAGES: tensor.extract_slice %[[RELU]][%[[J]], 0] [2, 128] [1, 1]
// STAGES: func.call @mlp_samples_1
// STAGES: tensor.insert_slice %{{.*}} into %{{.*}}[%[[J]], 0] [2, 8] [1, 1]
// STAGES: %[[LAST:.*]] = scf.for
// STAGES: tensor.extract_slice %[[HIDDEN]][%{{.*}}, 0] [4, 8] [1, 1]
// STAGES: func.call @mlp_samples_2
// STAGES: return %[[LAST]]
// WHY-STAGES: remark: the batch of @mlp runs in groups of 1, then 2, then 4 (4 samples, 1024 bytes a sample in its largest op)
#x2 = affine_map<(n, k) -> (n, k)>
#a3 = affine_map<(n, j, k) -> (n, k)>
#b3 = affine_map<(n, j, k) -> (k, j)>
#c3 = affine_map<(n, j, k) -> (n, j)>
func.func @mlp(%x: tensor<4x128xf32>) -> tensor<4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<0.5> : tensor<128x8xf32>
  %w2 = arith.constant dense<0.25> : tensor<8x32xf32>
  %e = tensor.empty() : tensor<4x128xf32>
  %relu = linalg.generic {indexing_maps = [#x2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x128xf32>) outs(%e : tensor<4x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x128xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.generic {indexing_maps = [#a3, #b3, #c3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%relu, %w1 : tensor<4x128xf32>, tensor<128x8xf32>) outs(%z1 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x32xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x32xf32>) -> tensor<4x32xf32>
  %y = linalg.generic {indexing_maps = [#a3, #b3, #c3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h, %w2 : tensor<4x8xf32>, tensor<8x32xf32>) outs(%z2 : tensor<4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// A larger group that reads no weight less often is not worth passing
// tensors between stages: the function runs as one stage, in the group
// that its first op allows.
// CHECK-LABEL: func.func private @shrinking_samples(
// STAGES-LABEL: func.func private @shrinking_samples(
// STAGES-SAME: tensor<2x64xf32>
// STAGES-NOT: func.func private
// STAGES-LABEL: func.func @shrinking
// WHY-STAGES: remark: the batch of @shrinking runs in groups of 2 (4 samples, 512 bytes a sample in its largest op)
#rows = affine_map<(n, k) -> (n, k)>
#row = affine_map<(n, k) -> (n)>
#each = affine_map<(n) -> (n)>
func.func @shrinking(%x: tensor<4x64xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %relu = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x64xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%relu : tensor<4x64xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e3 = tensor.empty() : tensor<4xf32>
  %last = linalg.generic {indexing_maps = [#each, #each], iterator_types = ["parallel"]}
      ins(%sum : tensor<4xf32>) outs(%e3 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %last : tensor<4xf32>
}

// -----

// A stage would read samples interleaved with another dimension (the
// [sequence x batch] sums before the last product, which alone fits four
// samples and has weights to read less often), which a group's slice
// cannot take: it joins the stage before it, and the function runs as one
// stage.
// CHECK-LABEL: func.func private @interleaved_stage_samples(
// STAGES-LABEL: func.func private @interleaved_stage_samples(
// STAGES-SAME: tensor<1x3x32xf32>
// STAGES-NOT: func.func private
// STAGES-LABEL: func.func @interleaved_stage
// WHY-STAGES: remark: the batch of @interleaved_stage runs in groups of 1 (4 samples
#t3 = affine_map<(b, s, f) -> (b, s, f)>
#t3t = affine_map<(b, s, f) -> (s, b, f)>
#r2 = affine_map<(r, f) -> (r, f)>
#r1 = affine_map<(r, f) -> (r)>
#gs = affine_map<(b, j, s) -> (s, b)>
#ws = affine_map<(b, j, s) -> (s, j)>
#bj = affine_map<(b, j, s) -> (b, j)>
func.func @interleaved_stage(%x: tensor<4x3x32xf32>) -> tensor<4x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x4x32xf32>
  %t = linalg.generic {indexing_maps = [#t3, #t3t], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<4x3x32xf32>) outs(%e : tensor<3x4x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<3x4x32xf32>
  %rows = tensor.collapse_shape %t [[0, 1], [2]] : tensor<3x4x32xf32> into tensor<12x32xf32>
  %e1 = tensor.empty() : tensor<12x32xf32>
  %relu = linalg.generic {indexing_maps = [#r2, #r2], iterator_types = ["parallel", "parallel"]}
      ins(%rows : tensor<12x32xf32>) outs(%e1 : tensor<12x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<12x32xf32>
  %e2 = tensor.empty() : tensor<12xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<12xf32>) -> tensor<12xf32>
  %sum = linalg.generic {indexing_maps = [#r2, #r1], iterator_types = ["parallel", "reduction"]}
      ins(%relu : tensor<12x32xf32>) outs(%init : tensor<12xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<12xf32>
  %grid = tensor.expand_shape %sum [[0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
  %w = arith.constant dense<0.5> : tensor<3x64xf32>
  %e3 = tensor.empty() : tensor<4x64xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %back = linalg.generic {indexing_maps = [#gs, #ws, #bj], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%grid, %w : tensor<3x4xf32>, tensor<3x64xf32>) outs(%z3 : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x64xf32>
  return %back : tensor<4x64xf32>
}

// -----

// A scalar operand (a fill's value) is no tensor of the samples' and no
// weight.
// CHECK-LABEL: func.func private @scalar_fill_samples(
// CHECK-SAME: tensor<2x8xf32>
// WHY-STAGES: remark: the batch of @scalar_fill runs whole (4 samples, 32 bytes a sample in its largest op)
func.func @scalar_fill(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = arith.constant 1.0 : f32
  %r = linalg.fill ins(%c : f32) outs(%x : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
