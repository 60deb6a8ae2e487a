// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// quant_qdq.tensor_range: calibration's minimum and maximum of each row of
// a tensor (its first dimension; one row below rank 2) and its element
// count. The result types follow from the input.

// CHECK-LABEL: func.func @rows
// CHECK-NEXT: %[[MIN:.*]], %[[MAX:.*]], %[[COUNT:.*]] = quant_qdq.tensor_range %arg0 : tensor<4x64x7x7xf32>
// CHECK-NEXT: return %[[MIN]], %[[MAX]], %[[COUNT]] : tensor<4xf32>, tensor<4xf32>, tensor<i64>
func.func @rows(%x: tensor<4x64x7x7xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<i64>) {
  %min, %max, %count = quant_qdq.tensor_range %x : tensor<4x64x7x7xf32>
  return %min, %max, %count : tensor<4xf32>, tensor<4xf32>, tensor<i64>
}

// CHECK-LABEL: func.func @one_row
// CHECK: quant_qdq.tensor_range %arg0 : tensor<100xf32>
// CHECK-NEXT: return %{{.*}} : tensor<f32>, tensor<f32>, tensor<i64>
func.func @one_row(%x: tensor<100xf32>) -> (tensor<f32>, tensor<f32>, tensor<i64>) {
  %min, %max, %count = quant_qdq.tensor_range %x : tensor<100xf32>
  return %min, %max, %count : tensor<f32>, tensor<f32>, tensor<i64>
}

// CHECK-LABEL: func.func @scalar
// CHECK: quant_qdq.tensor_range %arg0 : tensor<f32>
// CHECK-NEXT: return %{{.*}} : tensor<f32>, tensor<f32>, tensor<i64>
func.func @scalar(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<i64>) {
  %min, %max, %count = quant_qdq.tensor_range %x : tensor<f32>
  return %min, %max, %count : tensor<f32>, tensor<f32>, tensor<i64>
}

// A dynamic batch: as many rows as samples, known once the batch is.
// CHECK-LABEL: func.func @dynamic
// CHECK: quant_qdq.tensor_range %arg0 : tensor<?x10xf32>
// CHECK-NEXT: return %{{.*}} : tensor<?xf32>, tensor<?xf32>, tensor<i64>
func.func @dynamic(%x: tensor<?x10xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<i64>) {
  %min, %max, %count = quant_qdq.tensor_range %x : tensor<?x10xf32>
  return %min, %max, %count : tensor<?xf32>, tensor<?xf32>, tensor<i64>
}
