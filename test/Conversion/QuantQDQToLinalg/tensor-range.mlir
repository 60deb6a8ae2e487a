// RUN: qdq-opt %s --convert-quant-qdq-to-linalg | FileCheck %s
// RUN: qdq-opt %s --convert-quant-qdq-to-linalg --qdq-fuse-sibling-reductions | FileCheck %s --check-prefix=FUSED

// convert-quant-qdq-to-linalg writes calibration's tensor_range as ONNX
// ReduceMin and ReduceMax over all but the first dimension are written: a
// linalg.generic each, parallel over the rows, from +inf with
// arith.minimumf and from -inf with arith.maximumf (a NaN makes its row's
// result NaN), and the count as a constant.
// CHECK-LABEL: func.func @rows
// CHECK: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK: %[[MININIT:.*]] = linalg.fill ins(%[[INF]] : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: %[[MIN:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "reduction", "reduction"]} ins(%arg0 : tensor<2x3x100xf32>) outs(%[[MININIT]] : tensor<2xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.minimumf %[[X]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[M]]
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAXINIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "reduction", "reduction"]} ins(%arg0 : tensor<2x3x100xf32>) outs(%[[MAXINIT]] : tensor<2xf32>)
// CHECK-NEXT: ^bb0(%[[X2:.*]]: f32, %[[ACC2:.*]]: f32):
// CHECK-NEXT: %[[M2:.*]] = arith.maximumf %[[X2]], %[[ACC2]] : f32
// CHECK: %[[COUNT:.*]] = arith.constant dense<600> : tensor<i64>
// CHECK-NEXT: return %[[MIN]], %[[MAX]], %[[COUNT]]
// CHECK-NOT: quant_qdq.tensor_range

// The two read the tensor the same way: qdq-fuse-sibling-reductions makes
// them one read.
// FUSED-LABEL: func.func @rows
// FUSED: %[[BOTH:.*]]:2 = linalg.generic {{.*}} ins(%arg0 : tensor<2x3x100xf32>) outs(%{{.*}}, %{{.*}} : tensor<2xf32>, tensor<2xf32>)
// FUSED: arith.minimumf
// FUSED: arith.maximumf
// FUSED: return %[[BOTH]]#0, %[[BOTH]]#1
func.func @rows(%x: tensor<2x3x100xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<i64>) {
  %min, %max, %count = quant_qdq.tensor_range %x : tensor<2x3x100xf32>
  return %min, %max, %count : tensor<2xf32>, tensor<2xf32>, tensor<i64>
}

// Below rank 2, the whole tensor is one row: scalar results.
// CHECK-LABEL: func.func @one_row
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%arg0 : tensor<50xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: arith.minimumf
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%arg0 : tensor<50xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: arith.maximumf
// CHECK: arith.constant dense<50> : tensor<i64>
func.func @one_row(%x: tensor<50xf32>) -> (tensor<f32>, tensor<f32>, tensor<i64>) {
  %min, %max, %count = quant_qdq.tensor_range %x : tensor<50xf32>
  return %min, %max, %count : tensor<f32>, tensor<f32>, tensor<i64>
}

// Shapes are static by the time the pipeline runs this; a dynamic range is
// left for shape specialization, as a histogram is.
// CHECK-LABEL: func.func @dynamic
// CHECK: quant_qdq.tensor_range %arg0 : tensor<?x10xf32>
func.func @dynamic(%x: tensor<?x10xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<i64>) {
  %min, %max, %count = quant_qdq.tensor_range %x : tensor<?x10xf32>
  return %min, %max, %count : tensor<?xf32>, tensor<?xf32>, tensor<i64>
}
