// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// Global pooling keeps N x C x 1 x 1 by default (ONNX), or N x C with
// keep_dims = false (Keras).

// CHECK-LABEL: func.func @avg_keep_dims(%arg0: tensor<1x2048x7x7xf32>) -> tensor<1x2048x1x1xf32> {
// CHECK-NEXT: %0 = quant_qdq.global_avg_pool2d "gap" %arg0 : (tensor<1x2048x7x7xf32>) -> tensor<1x2048x1x1xf32>
// CHECK-NEXT: return %0 : tensor<1x2048x1x1xf32>
func.func @avg_keep_dims(%x: tensor<1x2048x7x7xf32>) -> tensor<1x2048x1x1xf32> {
  %y = quant_qdq.global_avg_pool2d "gap" %x : (tensor<1x2048x7x7xf32>) -> tensor<1x2048x1x1xf32>
  return %y : tensor<1x2048x1x1xf32>
}

// keep_dims = true is the default and is not printed.
// CHECK-LABEL: func.func @avg_keep_dims_explicit(%arg0: tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32> {
// CHECK-NEXT: %0 = quant_qdq.global_avg_pool2d %arg0 : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NEXT: return %0 : tensor<1x8x1x1xf32>
func.func @avg_keep_dims_explicit(%x: tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32> {
  %y = quant_qdq.global_avg_pool2d %x {keep_dims = true} : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
  return %y : tensor<1x8x1x1xf32>
}

// CHECK-LABEL: func.func @avg_flat(%arg0: tensor<?x1280x7x7xf32>) -> tensor<?x1280xf32> {
// CHECK-NEXT: %0 = quant_qdq.global_avg_pool2d %arg0 {keep_dims = false} : (tensor<?x1280x7x7xf32>) -> tensor<?x1280xf32>
// CHECK-NEXT: return %0 : tensor<?x1280xf32>
func.func @avg_flat(%x: tensor<?x1280x7x7xf32>) -> tensor<?x1280xf32> {
  %y = quant_qdq.global_avg_pool2d %x {keep_dims = false} : (tensor<?x1280x7x7xf32>) -> tensor<?x1280xf32>
  return %y : tensor<?x1280xf32>
}

// CHECK-LABEL: func.func @avg_nhwc(%arg0: tensor<1x7x7x1280xf32>) -> tensor<1x1x1x1280xf32> {
// CHECK-NEXT: %0 = quant_qdq.global_avg_pool2d %arg0 {layout = #quant_qdq<layout nhwc>} : (tensor<1x7x7x1280xf32>) -> tensor<1x1x1x1280xf32>
// CHECK-NEXT: return %0 : tensor<1x1x1x1280xf32>
func.func @avg_nhwc(%x: tensor<1x7x7x1280xf32>) -> tensor<1x1x1x1280xf32> {
  %y = quant_qdq.global_avg_pool2d %x {layout = #quant_qdq<layout nhwc>} : (tensor<1x7x7x1280xf32>) -> tensor<1x1x1x1280xf32>
  return %y : tensor<1x1x1x1280xf32>
}

// CHECK-LABEL: func.func @avg_nhwc_flat(%arg0: tensor<4x7x7x1280xf32>) -> tensor<4x1280xf32> {
// CHECK-NEXT: %0 = quant_qdq.global_avg_pool2d %arg0 {keep_dims = false, layout = #quant_qdq<layout nhwc>} : (tensor<4x7x7x1280xf32>) -> tensor<4x1280xf32>
// CHECK-NEXT: return %0 : tensor<4x1280xf32>
func.func @avg_nhwc_flat(%x: tensor<4x7x7x1280xf32>) -> tensor<4x1280xf32> {
  %y = quant_qdq.global_avg_pool2d %x {keep_dims = false, layout = #quant_qdq<layout nhwc>} : (tensor<4x7x7x1280xf32>) -> tensor<4x1280xf32>
  return %y : tensor<4x1280xf32>
}

// CHECK-LABEL: func.func @max_keep_dims(%arg0: tensor<1x512x?x?xf32>) -> tensor<1x512x1x1xf32> {
// CHECK-NEXT: %0 = quant_qdq.global_max_pool2d "gmp" %arg0 : (tensor<1x512x?x?xf32>) -> tensor<1x512x1x1xf32>
// CHECK-NEXT: return %0 : tensor<1x512x1x1xf32>
func.func @max_keep_dims(%x: tensor<1x512x?x?xf32>) -> tensor<1x512x1x1xf32> {
  %y = quant_qdq.global_max_pool2d "gmp" %x : (tensor<1x512x?x?xf32>) -> tensor<1x512x1x1xf32>
  return %y : tensor<1x512x1x1xf32>
}

// CHECK-LABEL: func.func @max_nhwc_flat(%arg0: tensor<2x5x5x64xf32>) -> tensor<2x64xf32> {
// CHECK-NEXT: %0 = quant_qdq.global_max_pool2d %arg0 {keep_dims = false, layout = #quant_qdq<layout nhwc>} : (tensor<2x5x5x64xf32>) -> tensor<2x64xf32>
// CHECK-NEXT: return %0 : tensor<2x64xf32>
func.func @max_nhwc_flat(%x: tensor<2x5x5x64xf32>) -> tensor<2x64xf32> {
  %y = quant_qdq.global_max_pool2d %x {keep_dims = false, layout = #quant_qdq<layout nhwc>} : (tensor<2x5x5x64xf32>) -> tensor<2x64xf32>
  return %y : tensor<2x64xf32>
}
