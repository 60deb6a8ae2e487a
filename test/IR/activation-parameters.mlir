// RUN: qdq-opt %s | qdq-opt | FileCheck %s
// RUN: qdq-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Activation kinds with parameters: leaky_relu and elu take alpha,
// hard_sigmoid alpha and beta, clip min and max.

// CHECK-LABEL: func.func @leaky_relu(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.activation leaky_relu "lrelu" %arg0 {alpha = 1.000000e-01 : f32} : tensor<4x8xf32>
// CHECK-NEXT: return %0 : tensor<4x8xf32>
func.func @leaky_relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = quant_qdq.activation leaky_relu "lrelu" %x {alpha = 0.1 : f32} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// GENERIC: "quant_qdq.activation"(%{{.*}}) <{alpha = 1.000000e-01 : f32, kind = #quant_qdq<activation leaky_relu>, name = "lrelu"}> : (tensor<4x8xf32>) -> tensor<4x8xf32>

// CHECK-LABEL: func.func @elu(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.activation elu %arg0 {alpha = 1.500000e+00 : f32} : tensor<4x8xf32>
// CHECK-NEXT: return %0 : tensor<4x8xf32>
func.func @elu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = quant_qdq.activation elu %x {alpha = 1.5 : f32} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// GENERIC: "quant_qdq.activation"(%{{.*}}) <{alpha = 1.500000e+00 : f32, kind = #quant_qdq<activation elu>}>

// CHECK-LABEL: func.func @hard_sigmoid(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.activation hard_sigmoid %arg0 {alpha = 0.166666672 : f32, beta = 5.000000e-01 : f32} : tensor<4x8xf32>
// CHECK-NEXT: return %0 : tensor<4x8xf32>
func.func @hard_sigmoid(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = quant_qdq.activation hard_sigmoid %x {alpha = 0.166666672 : f32, beta = 0.5 : f32} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// GENERIC: "quant_qdq.activation"(%{{.*}}) <{alpha = 0.166666672 : f32, beta = 5.000000e-01 : f32, kind = #quant_qdq<activation hard_sigmoid>}>

// CHECK-LABEL: func.func @hard_sigmoid_beta_only(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.activation hard_sigmoid %arg0 {beta = 2.500000e-01 : f32} : tensor<4x8xf32>
// CHECK-NEXT: return %0 : tensor<4x8xf32>
func.func @hard_sigmoid_beta_only(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = quant_qdq.activation hard_sigmoid %x {beta = 0.25 : f32} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// clip is relu6 when bounded by [0, 6].
// CHECK-LABEL: func.func @clip(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.activation clip "clip6" %arg0 {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<4x8xf32>
// CHECK-NEXT: return %0 : tensor<4x8xf32>
func.func @clip(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = quant_qdq.activation clip "clip6" %x {max = 6.0 : f32, min = 0.0 : f32} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// GENERIC: "quant_qdq.activation"(%{{.*}}) <{kind = #quant_qdq<activation clip>, max = 6.000000e+00 : f32, min = 0.000000e+00 : f32, name = "clip6"}>

// Equal bounds and negative bounds are valid.
// CHECK-LABEL: func.func @clip_degenerate(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %0 = quant_qdq.activation clip %arg0 {max = -1.000000e+00 : f32, min = -1.000000e+00 : f32} : tensor<4x8xf32>
// CHECK-NEXT: return %0 : tensor<4x8xf32>
func.func @clip_degenerate(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = quant_qdq.activation clip %x {max = -1.0 : f32, min = -1.0 : f32} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
