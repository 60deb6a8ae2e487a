// RUN: not qdq-opt %s 2>&1 | FileCheck %s

// Errors from the shape functions carry the op's location, also inside
// nested regions and after other ops.

// CHECK: {{.*}}shape-error-location.mlir:[[# @LINE + 6]]:10: error: input has 512 features but the weight expects 256
// CHECK-NEXT: {{^}}    %y = quant_qdq.dense "fc" %x, %w
// CHECK: {{.*}}shape-error-location.mlir:[[# @LINE + 4]]:10: error: 'quant_qdq.dense' op failed to infer returned types
module {
  func.func @f(%x: tensor<4x512xf32>, %w: tensor<256x10xf32>) -> tensor<4x10xf32> {
    %r = quant_qdq.activation relu %x : tensor<4x512xf32>
    %y = quant_qdq.dense "fc" %x, %w : (tensor<4x512xf32>, tensor<256x10xf32>) -> tensor<4x10xf32>
    return %y : tensor<4x10xf32>
  }
}
