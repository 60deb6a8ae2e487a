// RUN: qdq-opt %s --split-input-file --convert-onnx-to-quant-qdq | FileCheck %s

// x.view(x.size(0), -1) as exporters write it: Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape evaluates to a constant target on a
// static input, and the Reshape becomes a layer; the shape nodes and the
// constants only they read are gone.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @view
func.func @view(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  // CHECK-NOT: generic
  // CHECK-NOT: arith.constant
  // CHECK: quant_qdq.reshape "view" %{{.*}} {shape = array<i64: 2, 12>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %shape = quant_qdq.generic "Shape" "shape" %x : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %zero = quant_qdq.generic "Constant" "zero" {layer_attributes = {value = dense<0> : tensor<i64>}} : () -> tensor<i64>
  %batch = quant_qdq.generic "Gather" "gather" %shape, %zero {layer_attributes = {axis = 0 : i64}} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %axes = arith.constant dense<0> : tensor<1xi64>
  %b1 = quant_qdq.generic "Unsqueeze" "unsqueeze" %batch, %axes : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %minus = quant_qdq.generic "Constant" "minus_one" {layer_attributes = {value_ints = array<i64: -1>}} : () -> tensor<1xi64>
  %target = quant_qdq.generic "Concat" "concat" %b1, %minus {layer_attributes = {axis = 0 : i64}} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %y = quant_qdq.generic "Reshape" "view" %x, %target : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  return %y : tensor<2x12xf32>
}
}

// -----

// Integer arithmetic, Slice, Gather, Squeeze, Cast to int64 and Size on
// constants.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @arithmetic
func.func @arithmetic(%x: tensor<2x3x4xf32>) -> (tensor<2xi64>, tensor<2xi64>, tensor<i64>, tensor<2xi64>, tensor<i64>) {
  // CHECK-DAG: arith.constant dense<[6, 8]> : tensor<2xi64>
  // CHECK-DAG: arith.constant dense<[3, 4]> : tensor<2xi64>
  // CHECK-DAG: arith.constant dense<4> : tensor<i64>
  // CHECK-DAG: arith.constant dense<[1, 2]> : tensor<2xi64>
  // CHECK-DAG: arith.constant dense<24> : tensor<i64>
  // CHECK-NOT: generic
  %shape = quant_qdq.generic "Shape" %x : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %two = arith.constant dense<2> : tensor<i64>
  %starts = arith.constant dense<1> : tensor<1xi64>
  %ends = arith.constant dense<3> : tensor<1xi64>
  %tail = quant_qdq.generic "Slice" %shape, %starts, %ends : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %doubled = quant_qdq.generic "Mul" %tail, %two : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %halved = quant_qdq.generic "Div" %doubled, %two : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %last = quant_qdq.generic "Gather" %halved, %starts : (tensor<2xi64>, tensor<1xi64>) -> tensor<1xi64>
  %scalar = quant_qdq.generic "Squeeze" %last : (tensor<1xi64>) -> tensor<i64>
  %minus = quant_qdq.generic "Sub" %tail, %two : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %cast = quant_qdq.generic "Cast" %minus {layer_attributes = {to = 7 : i64}} : (tensor<2xi64>) -> tensor<2xi64>
  %size = quant_qdq.generic "Size" %x : (tensor<2x3x4xf32>) -> tensor<i64>
  return %doubled, %halved, %scalar, %cast, %size : tensor<2xi64>, tensor<2xi64>, tensor<i64>, tensor<2xi64>, tensor<i64>
}
}

// -----

// Not evaluated: a dynamic shape, a cast to another integer type, a
// division by zero.
// CHECK-LABEL: func @kept
func.func @kept(%x: tensor<?x4xf32>) -> (tensor<2xi64>, tensor<2xi32>, tensor<1xi64>) {
  %zero = arith.constant dense<0> : tensor<1xi64>
  %one = arith.constant dense<1> : tensor<1xi64>
  %c = arith.constant dense<[2, 4]> : tensor<2xi64>
  // CHECK: quant_qdq.generic "Shape"
  %0 = quant_qdq.generic "Shape" %x : (tensor<?x4xf32>) -> tensor<2xi64>
  // CHECK: quant_qdq.generic "Cast"
  %1 = quant_qdq.generic "Cast" %c {layer_attributes = {to = 6 : i64}} : (tensor<2xi64>) -> tensor<2xi32>
  // CHECK: quant_qdq.generic "Div"
  %2 = quant_qdq.generic "Div" %one, %zero : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %0, %1, %2 : tensor<2xi64>, tensor<2xi32>, tensor<1xi64>
}

// -----

// torch's expand(-1, ...) and F.pad write their shape arithmetic with
// ConstantOfShape, Equal, Where, Mod, Range, Transpose and 2-D Slices with
// negative steps; on constants all of it evaluates (Mod of integers takes
// the divisor's sign).
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 17 : i64}} {
// CHECK-LABEL: func @torch_shape_arithmetic
// CHECK-NOT: generic
// CHECK-DAG: arith.constant dense<1> : tensor<3xi64>
// CHECK-DAG: arith.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: arith.constant dense<[2, 4, 5]> : tensor<3xi64>
// CHECK-DAG: arith.constant dense<[2, 2, 1]> : tensor<3xi64>
// CHECK-DAG: arith.constant dense<[1, 3, 5]> : tensor<3xi64>
// CHECK-DAG: arith.constant dense<[5, 6, 3, 4, 1, 2]> : tensor<6xi64>
// CHECK-DAG: arith.constant dense<{{\[}}[1, 3], [2, 4]]> : tensor<2x2xi64>
func.func @torch_shape_arithmetic() -> (tensor<3xi64>, tensor<3xi1>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<6xi64>, tensor<2x2xi64>) {
  %three = arith.constant dense<3> : tensor<1xi64>
  %ones = quant_qdq.generic "ConstantOfShape" "ones" %three {layer_attributes = {value = dense<1> : tensor<1xi64>}} : (tensor<1xi64>) -> tensor<3xi64>
  %shape = arith.constant dense<[2, -1, 5]> : tensor<3xi64>
  %minus = arith.constant dense<-1> : tensor<i64>
  %eq = quant_qdq.generic "Equal" "eq" %shape, %minus : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %four = arith.constant dense<4> : tensor<i64>
  %target = quant_qdq.generic "Where" "where" %eq, %four, %shape : (tensor<3xi1>, tensor<i64>, tensor<3xi64>) -> tensor<3xi64>
  %m = arith.constant dense<[5, -4, 7]> : tensor<3xi64>
  %d = arith.constant dense<3> : tensor<i64>
  %mod = quant_qdq.generic "Mod" "mod" %m, %d : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %start = arith.constant dense<1> : tensor<i64>
  %limit = arith.constant dense<6> : tensor<i64>
  %step = arith.constant dense<2> : tensor<i64>
  %range = quant_qdq.generic "Range" "range" %start, %limit, %step : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<3xi64>
  %pads = arith.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %s = arith.constant dense<-1> : tensor<1xi64>
  %e = arith.constant dense<-9223372036854775807> : tensor<1xi64>
  %a = arith.constant dense<0> : tensor<1xi64>
  %reversed = quant_qdq.generic "Slice" "reverse" %pads, %s, %e, %a, %s : (tensor<3x2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x2xi64>
  %flat_shape = arith.constant dense<-1> : tensor<1xi64>
  %flat = quant_qdq.generic "Reshape" "flat" %reversed, %flat_shape : (tensor<3x2xi64>, tensor<1xi64>) -> tensor<6xi64>
  %square = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %t = quant_qdq.generic "Transpose" "transpose" %square {layer_attributes = {perm = array<i64: 1, 0>}} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  return %ones, %eq, %target, %mod, %range, %flat, %t : tensor<3xi64>, tensor<3xi1>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<6xi64>, tensor<2x2xi64>
}
}

// -----

// Comparisons, arithmetic and Where broadcast as numpy does, ranks too:
// transformers' causal mask compares the key positions [L] with the query
// positions reshaped to [S, 1], and at a decode step (S = 1) the query
// side is a single element whose rank still makes the result [1, L]
// (folding it to [L] made the next node's type contradict its own).
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 17 : i64}} {
// CHECK-LABEL: func @broadcasting_comparisons
// CHECK-NOT: generic
// CHECK-DAG: arith.constant dense<{{\[}}[false, false, false, true]]> : tensor<1x4xi1>
// CHECK-DAG: arith.constant dense<{{\[}}[0, 1, 2, 3], [1, 2, 3, 4]]> : tensor<2x4xi64>
// CHECK-DAG: arith.constant dense<{{\[}}[7, 7, 7, 3]]> : tensor<1x4xi64>
// CHECK-DAG: arith.constant dense<false> : tensor<1x4xi1>
// CHECK-DAG: arith.constant dense<{{\[}}[true, true, true, false]]> : tensor<1x4xi1>
// CHECK-DAG: arith.constant dense<{{\[}}[true, false, true, false]]> : tensor<1x4xi1>
func.func @broadcasting_comparisons() -> (tensor<?x?xi1>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi1>, tensor<?x?xi1>, tensor<?x?xi1>) {
  %keys = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  %query = arith.constant dense<2> : tensor<1x1xi64>
  %mask = quant_qdq.generic "Greater" "mask" %keys, %query : (tensor<4xi64>, tensor<1x1xi64>) -> tensor<?x?xi1>
  %rows = arith.constant dense<[[0], [1]]> : tensor<2x1xi64>
  %sum = quant_qdq.generic "Add" "sum" %keys, %rows : (tensor<4xi64>, tensor<2x1xi64>) -> tensor<?x?xi64>
  %seven = arith.constant dense<7> : tensor<i64>
  %picked = quant_qdq.generic "Where" "where" %mask, %keys, %seven : (tensor<?x?xi1>, tensor<4xi64>, tensor<i64>) -> tensor<?x?xi64>
  // Attention's function body picks its head-repetition factor with
  // Not, And and Where.
  %one = arith.constant dense<1> : tensor<4xi64>
  %isone = quant_qdq.generic "Equal" "isone" %keys, %one : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %both = quant_qdq.generic "And" "both" %isone, %mask : (tensor<4xi1>, tensor<?x?xi1>) -> tensor<?x?xi1>
  %notmask = quant_qdq.generic "Not" "notmask" %mask : (tensor<?x?xi1>) -> tensor<?x?xi1>
  %either = quant_qdq.generic "Xor" "either" %isone, %notmask : (tensor<4xi1>, tensor<?x?xi1>) -> tensor<?x?xi1>
  %any = quant_qdq.generic "Or" "any" %either, %both : (tensor<?x?xi1>, tensor<?x?xi1>) -> tensor<?x?xi1>
  return %mask, %sum, %picked, %both, %notmask, %any : tensor<?x?xi1>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi1>, tensor<?x?xi1>, tensor<?x?xi1>
}
}
