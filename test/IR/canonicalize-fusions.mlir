// RUN: qdq-opt %s --split-input-file --canonicalize | FileCheck %s

// x * sigmoid(x) is swish, x * hard_sigmoid(x) with alpha 1/6 and beta 1/2
// hard_swish; the fused layer takes the multiply's name.
// CHECK-LABEL: func @gated
func.func @gated(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
  // CHECK-DAG: quant_qdq.activation swish "silu" %arg0 : tensor<1x4xf32>
  // CHECK-DAG: quant_qdq.activation hard_swish "hswish" %arg0 : tensor<1x4xf32>
  // CHECK-NOT: multiply
  %s = quant_qdq.activation sigmoid "gate" %x : tensor<1x4xf32>
  %0 = quant_qdq.multiply "silu" %s, %x : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %h = quant_qdq.activation hard_sigmoid "hgate" %x {alpha = 0.16666667 : f32, beta = 0.5 : f32} : tensor<1x4xf32>
  %1 = quant_qdq.multiply "hswish" %x, %h : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0, %1 : tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

// Kept: a gate of another input, another hard_sigmoid, a gate read twice.
// CHECK-LABEL: func @gated_kept
func.func @gated_kept(%x: tensor<1x4xf32>, %y: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  // CHECK-COUNT-3: quant_qdq.multiply
  %s = quant_qdq.activation sigmoid %y : tensor<1x4xf32>
  %0 = quant_qdq.multiply %x, %s : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %h = quant_qdq.activation hard_sigmoid %x : tensor<1x4xf32>
  %1 = quant_qdq.multiply %x, %h : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %t = quant_qdq.activation sigmoid %x : tensor<1x4xf32>
  %2 = quant_qdq.multiply %x, %t : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0, %1, %2, %t : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

// A bias-free dense plus a constant vector of its width is one dense; a
// [1, N] bias is read as [N] without copying. Kept: a bias that would
// broadcast to a larger rank, and a non-constant one.
// CHECK-LABEL: func @dense_bias
func.func @dense_bias(%x: tensor<2x8xf32>, %v: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<1x2x4xf32>, tensor<2x4xf32>) {
  %w = arith.constant dense<0.5> : tensor<8x4xf32>
  %b = arith.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %b3 = arith.constant dense<1.0> : tensor<1x1x4xf32>
  // CHECK: %[[B:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
  // CHECK: quant_qdq.dense "fc" %arg0, %{{.*}}, %[[B]] : (tensor<2x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %d = quant_qdq.dense "fc" %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %0 = quant_qdq.add "bias" %d, %b : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  // CHECK: quant_qdq.add "rank3"
  %d2 = quant_qdq.dense %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %1 = quant_qdq.add "rank3" %d2, %b3 : (tensor<2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
  // CHECK: quant_qdq.add "runtime"
  %d3 = quant_qdq.dense %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %2 = quant_qdq.add "runtime" %d3, %v : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<1x2x4xf32>, tensor<2x4xf32>
}

// -----

// A constant product and sum after a layer_norm are its scale and bias,
// when they fit the normalized dimensions and nothing else reads the
// layer_norm; the layer keeps its name.
// CHECK-LABEL: func @layer_norm_parameters
func.func @layer_norm_parameters(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  // CHECK: %[[G:.*]] = arith.constant dense<2.000000e+00> : tensor<8xf32>
  // CHECK: %[[B:.*]] = arith.constant dense<1.000000e+00> : tensor<8xf32>
  // CHECK: %[[N:.*]] = quant_qdq.layer_norm "ln" %arg0 scale %[[G]] bias %[[B]] : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  // CHECK-NEXT: return %[[N]]
  %g = arith.constant dense<2.0> : tensor<8xf32>
  %b = arith.constant dense<1.0> : tensor<8xf32>
  %0 = quant_qdq.layer_norm "ln" %x : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %1 = quant_qdq.multiply "scale" %g, %0 : (tensor<8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %2 = quant_qdq.add "bias" %1, %b : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %2 : tensor<2x3x8xf32>
}

// -----

// Kept: a product over a dimension that is not normalized, a second
// scale, a sum read beside the layer_norm, a product by an activation.
// CHECK-LABEL: func @layer_norm_parameters_kept
func.func @layer_norm_parameters_kept(%x: tensor<2x3x8xf32>, %y: tensor<2x3x8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  // CHECK: quant_qdq.layer_norm %arg0 :
  // CHECK-NEXT: quant_qdq.multiply
  // CHECK-NEXT: quant_qdq.layer_norm %arg0 scale
  // CHECK-NEXT: quant_qdq.multiply
  // CHECK-NEXT: quant_qdq.layer_norm %arg0 :
  // CHECK-NEXT: quant_qdq.add
  // CHECK-NEXT: quant_qdq.layer_norm %arg0 :
  // CHECK-NEXT: quant_qdq.multiply
  %rows = arith.constant dense<2.0> : tensor<3x1xf32>
  %g = arith.constant dense<2.0> : tensor<8xf32>
  %0 = quant_qdq.layer_norm %x : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %1 = quant_qdq.multiply %0, %rows : (tensor<2x3x8xf32>, tensor<3x1xf32>) -> tensor<2x3x8xf32>
  %2 = quant_qdq.layer_norm %x scale %g : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %3 = quant_qdq.multiply %2, %g : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %4 = quant_qdq.layer_norm %x : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %5 = quant_qdq.add %4, %g : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %6 = quant_qdq.layer_norm %x : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %7 = quant_qdq.multiply %6, %y : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %1, %3, %5, %4, %7 : tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>
}

// -----

// A constant product after an rms_norm is its scale (on either side), when
// it fits the normalized dimensions and nothing else reads the rms_norm;
// the layer keeps its name. A sum is no parameter of it.
// CHECK-LABEL: func @rms_norm_scale
func.func @rms_norm_scale(%x: tensor<2x3x8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  // CHECK: %[[G:.*]] = arith.constant dense<2.000000e+00> : tensor<8xf32>
  // CHECK: %[[N:.*]] = quant_qdq.rms_norm "norm" %arg0 scale %[[G]] : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  // CHECK: %[[M:.*]] = quant_qdq.rms_norm "norm2" %arg0 scale %[[G]] : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  // CHECK-NEXT: quant_qdq.add %[[M]], %[[G]]
  %g = arith.constant dense<2.0> : tensor<8xf32>
  %0 = quant_qdq.rms_norm "norm" %x : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %1 = quant_qdq.multiply "weight" %g, %0 : (tensor<8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %2 = quant_qdq.rms_norm "norm2" %x : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %3 = quant_qdq.multiply "weight2" %2, %g : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %4 = quant_qdq.add %3, %g : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %1, %4 : tensor<2x3x8xf32>, tensor<2x3x8xf32>
}

// -----

// Kept: a product over a dimension that is not normalized, a second
// scale, a product read beside the rms_norm, a product by an activation.
// CHECK-LABEL: func @rms_norm_scale_kept
func.func @rms_norm_scale_kept(%x: tensor<2x3x8xf32>, %y: tensor<2x3x8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  // CHECK: quant_qdq.rms_norm %arg0 :
  // CHECK-NEXT: quant_qdq.multiply
  // CHECK-NEXT: quant_qdq.rms_norm %arg0 scale
  // CHECK-NEXT: quant_qdq.multiply
  // CHECK-NEXT: quant_qdq.rms_norm %arg0 :
  // CHECK-NEXT: quant_qdq.multiply
  // CHECK-NEXT: quant_qdq.rms_norm %arg0 :
  // CHECK-NEXT: quant_qdq.multiply
  %rows = arith.constant dense<2.0> : tensor<3x1xf32>
  %g = arith.constant dense<2.0> : tensor<8xf32>
  %0 = quant_qdq.rms_norm %x : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %1 = quant_qdq.multiply %0, %rows : (tensor<2x3x8xf32>, tensor<3x1xf32>) -> tensor<2x3x8xf32>
  %2 = quant_qdq.rms_norm %x scale %g : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %3 = quant_qdq.multiply %2, %g : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %4 = quant_qdq.rms_norm %x : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %5 = quant_qdq.multiply %4, %g : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %6 = quant_qdq.rms_norm %x : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %7 = quant_qdq.multiply %6, %y : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %1, %3, %5, %4, %7 : tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>
}
