// RUN: qdq-opt %s --convert-quant-qdq-to-linalg | FileCheck %s --check-prefix=KEPT
// RUN: qdq-opt %s --qdq-lower-histograms="chunks=8 min-chunk-elements=64" | FileCheck %s
// RUN: not qdq-opt %s --qdq-lower-histograms="chunks=0" 2>&1 | FileCheck %s --check-prefix=BAD

// convert-quant-qdq-to-linalg keeps calibration's histograms, for
// qdq-split-batch to see their rows as samples.
// KEPT: quant_qdq.histogram

// qdq-lower-histograms: the rows ([2, 300] from [2, 3, 100]) times parts of
// a row reach `chunks` (2 x 4; a part of 75 elements is above 64), each
// part counted into its own histogram by a loop of loads, adds and stores
// at the bin |x| * bin_scale (f64) picks, the last bin past the edge, NaN
// adding 0; a linalg.reduce then adds the parts of each row.
// CHECK-LABEL: func.func @rows
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<2x3x100xf32> into tensor<2x300xf32>
// CHECK: %[[PARTS:.*]] = scf.forall (%[[R:.*]], %[[P:.*]]) in (2, 4) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<2x4x16xi64>)
// CHECK: %[[START:.*]] = arith.muli %[[P]], %c75
// CHECK: linalg.fill ins(%c0_i64 : i64) outs(%{{.*}} : tensor<16xi64>)
// CHECK: scf.for %[[I:.*]] = %[[START]] to
// CHECK: %[[X:.*]] = tensor.extract %[[ROWS]][%[[R]], %[[I]]]
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]]
// CHECK: math.absf %[[X]]
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: arith.minimumf
// CHECK: arith.select %[[NAN]]
// CHECK: arith.fptoui %{{.*}} : f64 to i64
// CHECK: tensor.extract
// CHECK: arith.select %[[NAN]], %c0_i64, %c1_i64
// CHECK: tensor.insert
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[R]], %[[P]], 0] [1, 1, 16] [1, 1, 1]
// CHECK: linalg.reduce ins(%[[PARTS]] : tensor<2x4x16xi64>) outs(%{{.*}} : tensor<2x16xi64>) dimensions = [1]
// CHECK-NOT: quant_qdq.histogram
func.func @rows(%x: tensor<2x3x100xf32>) -> tensor<2x16xi64> {
  %h = quant_qdq.histogram %x bins 16 bin_scale 4.0 : tensor<2x3x100xf32>
  return %h : tensor<2x16xi64>
}

// Below rank 2, one row; rows too short for a part of their own stay whole.
// CHECK-LABEL: func.func @short
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 50] : tensor<50xf32> into tensor<1x50xf32>
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (1, 1)
func.func @short(%x: tensor<50xf32>) -> tensor<1x8xi64> {
  %h = quant_qdq.histogram %x bins 8 bin_scale 1.0 : tensor<50xf32>
  return %h : tensor<1x8xi64>
}

// Shapes are static by the time the pipeline runs this; a dynamic one is
// left for shape specialization.
// CHECK-LABEL: func.func @dynamic
// CHECK: quant_qdq.histogram
func.func @dynamic(%x: tensor<?x10xf32>) -> tensor<?x16xi64> {
  %h = quant_qdq.histogram %x bins 16 bin_scale 2.0 : tensor<?x10xf32>
  return %h : tensor<?x16xi64>
}

// BAD: qdq-lower-histograms: chunks and min-chunk-elements must be positive
