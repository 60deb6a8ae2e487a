// RUN: qdq-opt %s --split-input-file --convert-onnx-to-quant-qdq | FileCheck %s

// Add, Sum and Mul of float tensors are add and multiply (a one-input Sum
// is its input); mixed element types and integer tensors stay generic.
// CHECK-LABEL: func @arithmetic
func.func @arithmetic(%a: tensor<1x4xf32>, %b: tensor<4xf32>, %h: tensor<4xf16>, %i: tensor<4xi64>) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<4xf32>, tensor<4xi64>) {
  // CHECK: %[[ADD:.*]] = quant_qdq.add "add" %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %0 = quant_qdq.generic "Add" "add" %a, %b : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  // CHECK: quant_qdq.add "sum" %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %1 = quant_qdq.generic "Sum" "sum" %a, %0, %b : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  // CHECK-NOT: "single"
  %2 = quant_qdq.generic "Sum" "single" %0 : (tensor<1x4xf32>) -> tensor<1x4xf32>
  // CHECK: quant_qdq.multiply "mul" %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %3 = quant_qdq.generic "Mul" "mul" %a, %a : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  // CHECK: quant_qdq.generic "Add" "mixed"
  %4 = quant_qdq.generic "Add" "mixed" %b, %h : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  // CHECK: quant_qdq.generic "Add" "ints"
  %5 = quant_qdq.generic "Add" "ints" %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // CHECK: return %{{.*}}, %{{.*}}, %[[ADD]],
  return %0, %1, %2, %3, %4, %5 : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<4xf32>, tensor<4xi64>
}

// -----

// CHECK-LABEL: func @concat
func.func @concat(%a: tensor<1x2x4xf32>, %b: tensor<1x3x4xf32>) -> tensor<1x5x4xf32> {
  // CHECK: quant_qdq.concat "cat" %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>) -> tensor<1x5x4xf32>
  %0 = quant_qdq.generic "Concat" "cat" %a, %b {layer_attributes = {axis = 1 : i64}} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>) -> tensor<1x5x4xf32>
  return %0 : tensor<1x5x4xf32>
}

// -----

// A node of another domain is never read as the default domain's op.
// CHECK-LABEL: func @other_domain
func.func @other_domain(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: quant_qdq.generic "Add" "custom" {{.*}} {domain = "com.example"}
  %0 = quant_qdq.generic "Add" "custom" %a, %a {domain = "com.example"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
