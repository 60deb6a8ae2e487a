// Reductions that read one tensor the same way over the same loops become
// one generic (calibration's minimum and maximum of an activation), so the
// tensor is read once; others are left alone.
// RUN: qdq-opt %s --qdq-fuse-sibling-reductions --split-input-file | FileCheck %s

#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0)>

// CHECK-LABEL: func.func @min_and_max
// CHECK-SAME: (%[[X:.*]]: tensor<4x8x16xf32>
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-SAME: ins(%[[X]] : tensor<4x8x16xf32>)
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[LO:.*]]: f32, %[[HI:.*]]: f32):
// CHECK-NEXT: %[[MIN:.*]] = arith.minimumf %[[IN]], %[[LO]]
// CHECK-NEXT: %[[MAX:.*]] = arith.maximumf %[[IN]], %[[HI]]
// CHECK-NEXT: linalg.yield %[[MIN]], %[[MAX]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @min_and_max(%x: tensor<4x8x16xf32>, %lo: tensor<4xf32>,
                       %hi: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %min = linalg.generic {indexing_maps = [#in, #out],
                         iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<4x8x16xf32>) outs(%lo : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.minimumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#in, #out],
                         iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<4x8x16xf32>) outs(%hi : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %min, %max : tensor<4xf32>, tensor<4xf32>
}

// -----

// Three siblings fuse one after the other; the third's other input joins
// the fused op's inputs.
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @three
// CHECK: %[[R:.*]]:3 = linalg.generic
// CHECK-SAME: ins(%arg0, %arg1 : tensor<4x16xf32>, tensor<4x16xf32>)
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
func.func @three(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>,
                 %init: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %min = linalg.generic {indexing_maps = [#in, #out],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.minimumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#in, #out],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %dot = linalg.generic {indexing_maps = [#in, #in, #out],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x, %y : tensor<4x16xf32>, tensor<4x16xf32>)
      outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %min, %max, %dot : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Left alone: the second reads the first's result (not siblings), the
// tensor read through another map (a transpose), other loop ranges, and
// element-wise ops.
#in = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#out = affine_map<(d0, d1) -> (d0)>
#out1 = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @not_siblings
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: linalg.generic
func.func @not_siblings(%x: tensor<16x16xf32>, %init: tensor<16xf32>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>) {
  %sum = linalg.generic {indexing_maps = [#in, #out],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x16xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %dependent = linalg.generic {indexing_maps = [#in, #out],
                               iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x16xf32>) outs(%sum : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %columns = linalg.generic {indexing_maps = [#tr, #out],
                             iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x16xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %neg = linalg.generic {indexing_maps = [#in, #in],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<16x16xf32>
  return %dependent, %columns, %neg : tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>
}

// -----

// The first's result is read before the second: the fused op, in the
// second's place, would come too late for that reader.
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @read_in_between
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: linalg.generic
func.func @read_in_between(%x: tensor<4x16xf32>, %init: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %min = linalg.generic {indexing_maps = [#in, #out],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.minimumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %twice = arith.addf %min, %min : tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#in, #out],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %twice, %max : tensor<4xf32>, tensor<4xf32>
}

// -----

// Left alone: two matrix products of one input (a decoder's gate and up
// projections). Each is a contraction qdq-vectorize-contractions tiles in
// registers; fused into one op of two results, they ran as scalar loops.
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (k, n)>
#y = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @gate_and_up
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: linalg.generic
func.func @gate_and_up(%x: tensor<8x16xf32>, %wg: tensor<16x32xf32>,
                       %wu: tensor<16x32xf32>, %init: tensor<8x32xf32>)
    -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %gate = linalg.generic {indexing_maps = [#x, #w, #y],
                          iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wg : tensor<8x16xf32>, tensor<16x32xf32>)
      outs(%init : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %up = linalg.generic {indexing_maps = [#x, #w, #y],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wu : tensor<8x16xf32>, tensor<16x32xf32>)
      outs(%init : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %gate, %up : tensor<8x32xf32>, tensor<8x32xf32>
}
