// A value returned more than once is copied for each repeat; the first
// return of it, values returned once and non-tensor results are left alone.
// RUN: qdq-opt %s --qdq-copy-repeated-results --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @repeated
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>, %[[Y:.*]]: tensor<?x3xf32>, %[[I:.*]]: index)
// CHECK: %[[C1:.*]] = bufferization.alloc_tensor() copy(%[[X]]) : tensor<2xf32>
// CHECK: %[[C2:.*]] = bufferization.alloc_tensor() copy(%[[Y]]) : tensor<?x3xf32>
// CHECK: %[[C3:.*]] = bufferization.alloc_tensor() copy(%[[X]]) : tensor<2xf32>
// CHECK: return %[[X]], %[[Y]], %[[C1]], %[[I]], %[[I]], %[[C2]], %[[C3]]
func.func @repeated(%x: tensor<2xf32>, %y: tensor<?x3xf32>, %i: index)
    -> (tensor<2xf32>, tensor<?x3xf32>, tensor<2xf32>, index, index,
        tensor<?x3xf32>, tensor<2xf32>) {
  return %x, %y, %x, %i, %i, %y, %x
      : tensor<2xf32>, tensor<?x3xf32>, tensor<2xf32>, index, index,
        tensor<?x3xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @distinct
// CHECK-NOT: alloc_tensor
func.func @distinct(%x: tensor<2xf32>, %y: tensor<2xf32>)
    -> (tensor<2xf32>, tensor<2xf32>) {
  return %x, %y : tensor<2xf32>, tensor<2xf32>
}
