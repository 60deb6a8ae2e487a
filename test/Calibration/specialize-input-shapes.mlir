// qdq-specialize-input-shapes fixes the inputs' shapes and every shape
// that follows, so that the module lowers without qdq-run: here the class
// token of a ViT, expanded to the batch a Shape node reads (torch's
// export of `cls.expand(x.shape[0], -1, -1)`), which the lowering alone
// refuses.
// RUN: not qdq-opt %s --convert-quant-qdq-to-linalg 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: qdq-opt %s --qdq-specialize-input-shapes=2x3x4 | FileCheck %s
// RUN: qdq-opt %s --qdq-specialize-input-shapes="shapes=2x3x4" --convert-quant-qdq-to-linalg | FileCheck %s --check-prefix=LINALG
// RUN: not qdq-opt %s --qdq-specialize-input-shapes=2x3 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not qdq-opt %s --qdq-specialize-input-shapes=2xthree 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: not qdq-opt %s --qdq-specialize-input-shapes=5x4x4 2>&1 | FileCheck %s --check-prefix=STATIC

// DYNAMIC: error: node '/Expand' (Expand): result #0 must have a static shape to execute

// The shape computation folds to a constant, Expand's result is static.
// CHECK: func.func @main(%arg0: tensor<2x3x4xf32> {{.*}}) -> (tensor<2x4x4xf32>
// CHECK-NOT: "Shape"
// CHECK: quant_qdq.generic "Expand" "/Expand" {{.*}} -> tensor<2x1x4xf32>
// CHECK: quant_qdq.concat "/Concat_1" {{.*}} -> tensor<2x4x4xf32>

// LINALG: func.func @main(%arg0: tensor<2x3x4xf32>
// LINALG-NOT: = quant_qdq.
// LINALG: return {{.*}} : tensor<2x4x4xf32>

// RANK: error: input #0 is 'tensor<?x3x4xf32>' but the array has rank 2
// TEXT: error: qdq-specialize-input-shapes: '2xthree' is not a shape
// STATIC: error: input #0 is 'tensor<?x3x4xf32>' but the array has size 4 in dimension 1

module attributes {quant_qdq.onnx.graph_name = "torch_jit", quant_qdq.onnx.ir_version = 7 : i64, quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}, quant_qdq.onnx.producer_name = "pytorch", quant_qdq.onnx.producer_version = "1.13.0"} {
  func.func @main(%arg0: tensor<?x3x4xf32> {quant_qdq.onnx.dim_params = ["batch", "", ""], quant_qdq.onnx.name = "input"}) -> (tensor<?x?x4xf32> {quant_qdq.onnx.name = "output"}) {
    %0 = quant_qdq.generic "Shape" "/Shape" %arg0 : (tensor<?x3x4xf32>) -> tensor<3xi64>
    %cst = arith.constant dense<0> : tensor<i64>
    %cst_0 = arith.constant dense<0> : tensor<1xi64>
    %cst_1 = arith.constant dense<-1> : tensor<1xi64>
    %cst_2 = arith.constant dense<-1> : tensor<1xi64>
    %cst_3 = arith.constant dense<-1> : tensor<1xi64>
    %1 = quant_qdq.generic "Gather" "/Gather" %0, %cst {layer_attributes = {axis = 0 : i64}} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
    %2 = quant_qdq.generic "Unsqueeze" "/Unsqueeze" %1, %cst_0 : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
    %3 = quant_qdq.generic "Concat" "/Concat" %2, %cst_1, %cst_2 {layer_attributes = {axis = 0 : i64}} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
    %4 = quant_qdq.generic "Reshape" "/Reshape" %3, %cst_3 : (tensor<3xi64>, tensor<1xi64>) -> tensor<3xi64>
    %cst_4 = arith.constant dense<1> : tensor<3xi64>
    %cst_5 = arith.constant dense<-1> : tensor<3xi64>
    %5 = quant_qdq.generic "Equal" "/Equal" %4, %cst_5 : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
    %6 = quant_qdq.generic "Where" "/Where" %5, %cst_4, %4 : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
    %cst_6 = arith.constant dense<[[[-0.931593835, -1.96655059, 1.0209595, -0.269361049]]]> : tensor<1x1x4xf32>
    %7 = quant_qdq.generic "Expand" "/Expand" %cst_6, %6 : (tensor<1x1x4xf32>, tensor<3xi64>) -> tensor<?x?x4xf32>
    %8 = quant_qdq.concat "/Concat_1" %7, %arg0 {axis = 1 : i64} : (tensor<?x?x4xf32>, tensor<?x3x4xf32>) -> tensor<?x?x4xf32>
    return %8 : tensor<?x?x4xf32>
  }
}
