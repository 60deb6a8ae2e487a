// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | qdq-opt | FileCheck %s

// quant_qdq.generic carries any layer that no other op models: its op_type,
// name, domain, layer_attributes, operands and results, unchanged.

// CHECK-LABEL: func.func @lp_norm(%arg0: tensor<1x64xf32>) -> tensor<1x64xf32> {
// CHECK-NEXT: %0 = quant_qdq.generic "LpNormalization" "norm" %arg0 {layer_attributes = {axis = 1 : i64, p = 2 : i64}} : (tensor<1x64xf32>) -> tensor<1x64xf32>
// CHECK-NEXT: return %0 : tensor<1x64xf32>
func.func @lp_norm(%x: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %0 = quant_qdq.generic "LpNormalization" "norm" %x {layer_attributes = {axis = 1 : i64, p = 2 : i64}} : (tensor<1x64xf32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// No operands: a constant-like layer. No name either.
// CHECK-LABEL: func.func @no_operands() -> tensor<4xf32> {
// CHECK-NEXT: %0 = quant_qdq.generic "RandomNormal" {layer_attributes = {seed = 0.000000e+00 : f32, shape = [4]}} : () -> tensor<4xf32>
// CHECK-NEXT: return %0 : tensor<4xf32>
func.func @no_operands() -> tensor<4xf32> {
  %0 = quant_qdq.generic "RandomNormal" {layer_attributes = {shape = [4], seed = 0.0 : f32}} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Several operands and results, of any type, and a domain.
// CHECK-LABEL: func.func @lstm(%arg0: tensor<5x2x8xf32>, %arg1: tensor<1x64x8xf32>, %arg2: tensor<1x64x16xf32>, %arg3: tensor<2xi32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>) {
// CHECK-NEXT: %0:3 = quant_qdq.generic "LSTM" "lstm1" %arg0, %arg1, %arg2, %arg3 {domain = "ai.onnx", layer_attributes = {direction = "forward", hidden_size = 16 : i64}} : (tensor<5x2x8xf32>, tensor<1x64x8xf32>, tensor<1x64x16xf32>, tensor<2xi32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>)
// CHECK-NEXT: return %0#0, %0#1, %0#2 : tensor<5x1x2x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>
func.func @lstm(%x: tensor<5x2x8xf32>, %w: tensor<1x64x8xf32>, %r: tensor<1x64x16xf32>, %len: tensor<2xi32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>) {
  %0:3 = quant_qdq.generic "LSTM" "lstm1" %x, %w, %r, %len {domain = "ai.onnx", layer_attributes = {direction = "forward", hidden_size = 16 : i64}} : (tensor<5x2x8xf32>, tensor<1x64x8xf32>, tensor<1x64x16xf32>, tensor<2xi32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>)
  return %0#0, %0#1, %0#2 : tensor<5x1x2x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>
}

// No results: a side-effecting sink. Non-tensor operands are allowed.
// CHECK-LABEL: func.func @no_results(%arg0: tensor<?x?xf32>, %arg1: index) {
// CHECK-NEXT: quant_qdq.generic "Print" %arg0, %arg1 {domain = "com.example"} : (tensor<?x?xf32>, index) -> ()
// CHECK-NEXT: return
func.func @no_results(%x: tensor<?x?xf32>, %i: index) {
  quant_qdq.generic "Print" %x, %i {domain = "com.example"} : (tensor<?x?xf32>, index) -> ()
  return
}

// Unranked tensors and an empty attribute dictionary.
// CHECK-LABEL: func.func @unranked(%arg0: tensor<*xf32>) -> tensor<*xf16> {
// CHECK-NEXT: %0 = quant_qdq.generic "Cast" %arg0 {layer_attributes = {}} : (tensor<*xf32>) -> tensor<*xf16>
// CHECK-NEXT: return %0 : tensor<*xf16>
func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf16> {
  %0 = quant_qdq.generic "Cast" %x {layer_attributes = {}} : (tensor<*xf32>) -> tensor<*xf16>
  return %0 : tensor<*xf16>
}
