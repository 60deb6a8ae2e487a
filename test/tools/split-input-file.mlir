// RUN: not qdq-opt %s -split-input-file 2>&1 | FileCheck %s
// RUN: sh -c 'qdq-opt %s -split-input-file > /dev/null 2>&1; test $? -eq 1'
// RUN: not qdq-opt %s -split-input-file 2>/dev/null | FileCheck %s --check-prefix=OUT

// With -split-input-file each chunk is processed on its own; errors keep
// the line numbers of the whole file, the valid chunks are still printed,
// and the exit status is 1 if any chunk fails.

// OUT: func.func @first
// OUT: // -----
// OUT-NOT: @second
// OUT: func.func @third

func.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quant_qdq.activation tanh %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: {{.*}}split-input-file.mlir:[[# @LINE + 2]]:8: error: 'quant_qdq.softmax' op axis 1 is out of range for rank 1
func.func @second(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quant_qdq.softmax %x {axis = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @third(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quant_qdq.activation gelu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
