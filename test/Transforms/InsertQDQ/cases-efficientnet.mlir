// efficientnet = residual + se-multiply: the squeeze-and-excitation Multiply
// gets Q/DQ on both inputs; a swish activation is not a Multiply and stays
// alone; the default table would leave the Multiply in float.
// RUN: qdq-opt %s --insert-qdq=efficientnet | FileCheck %s
// RUN: qdq-opt %s --insert-qdq | FileCheck %s --check-prefix=DEFAULT

func.func @se(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %w1 = arith.constant dense<0.1> : tensor<2x8x1x1xf32>
  %w2 = arith.constant dense<0.1> : tensor<8x2x1x1xf32>
  %a = quant_qdq.activation swish "swish" %x : tensor<1x8x4x4xf32>
  %s = quant_qdq.global_avg_pool2d "squeeze" %a : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %r = quant_qdq.conv2d "reduce" %s, %w1 : (tensor<1x8x1x1xf32>, tensor<2x8x1x1xf32>) -> tensor<1x2x1x1xf32>
  %r2 = quant_qdq.activation swish "reduce_swish" %r : tensor<1x2x1x1xf32>
  %e = quant_qdq.conv2d "expand" %r2, %w2 : (tensor<1x2x1x1xf32>, tensor<8x2x1x1xf32>) -> tensor<1x8x1x1xf32>
  %g = quant_qdq.activation sigmoid "gate" %e : tensor<1x8x1x1xf32>
  %m = quant_qdq.multiply "excite" %a, %g : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  return %m : tensor<1x8x4x4xf32>
}

// CHECK: %[[A:.*]] = quant_qdq.activation swish "swish" %arg0
// CHECK-NEXT: %[[QA:.*]] = quant_qdq.quantize %[[A]]
// CHECK-NEXT: %[[DQA:.*]] = quant_qdq.dequantize %[[QA]]
// CHECK: %[[G:.*]] = quant_qdq.activation sigmoid "gate"
// CHECK-NEXT: %[[QG:.*]] = quant_qdq.quantize %[[G]]
// CHECK-NEXT: %[[DQG:.*]] = quant_qdq.dequantize %[[QG]]
// CHECK-NEXT: quant_qdq.multiply "excite" %[[DQA]], %[[DQG]]

// DEFAULT: %[[G:.*]] = quant_qdq.activation sigmoid "gate"
// DEFAULT-NEXT: quant_qdq.multiply "excite" %{{.*}}, %[[G]] :
