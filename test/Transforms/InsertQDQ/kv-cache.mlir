// kv-cache=int8: a decode step's cache, the keys and values it returns, is
// quantized by one pair that every reader takes, the return included.
// Other concatenations the step returns are left alone: an int64 mask, and
// a float one, which joins no past* input and is not named present*. A
// second run finds the cache dequantized and adds nothing.
// RUN: qdq-opt %s --insert-qdq="kv-cache=int8 activation-format=none" | FileCheck %s
// RUN: qdq-opt %s --insert-qdq="kv-cache=int8 activation-format=none" | qdq-opt --insert-qdq="kv-cache=int8 activation-format=none report=-" | FileCheck %s --check-prefix=TWICE
// RUN: qdq-opt %s --insert-qdq="kv-cache=fp8 activation-format=none" | FileCheck %s --check-prefix=FP8
// RUN: not qdq-opt %s --insert-qdq="kv-cache=int4" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

func.func @main(%new: tensor<1x2x1x8xf32> {quant_qdq.onnx.name = "new_key"},
                %past: tensor<1x2x3x8xf32> {quant_qdq.onnx.name = "past_key_0"},
                %mask: tensor<1x3xi64> {quant_qdq.onnx.name = "attention_mask"},
                %bias: tensor<1x3xf32> {quant_qdq.onnx.name = "mask_bias"})
    -> (tensor<1x2x4x8xf32> {quant_qdq.onnx.name = "present_key_0"},
        tensor<1x2x4x8xf32> {quant_qdq.onnx.name = "scores"},
        tensor<1x4xi64> {quant_qdq.onnx.name = "mask_out"},
        tensor<1x4xf32> {quant_qdq.onnx.name = "bias_out"}) {
  %one = arith.constant dense<1> : tensor<1x1xi64>
  %zero = arith.constant dense<0.0> : tensor<1x1xf32>
  %cache = quant_qdq.concat "cache" %past, %new {axis = 2 : i64} : (tensor<1x2x3x8xf32>, tensor<1x2x1x8xf32>) -> tensor<1x2x4x8xf32>
  %read = quant_qdq.activation relu "read" %cache : tensor<1x2x4x8xf32>
  %m = quant_qdq.generic "Concat" "mask_cat" %mask, %one {layer_attributes = {axis = 1 : i64}} : (tensor<1x3xi64>, tensor<1x1xi64>) -> tensor<1x4xi64>
  %b = quant_qdq.concat "bias_cat" %bias, %zero {axis = 1 : i64} : (tensor<1x3xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  return %cache, %read, %m, %b : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4xi64>, tensor<1x4xf32>
}

// CHECK: %[[CACHE:.*]] = quant_qdq.concat "cache"
// CHECK-NEXT: %[[Q:.*]] = quant_qdq.quantize %[[CACHE]] <bits = 8
// CHECK-NEXT: %[[DQ:.*]] = quant_qdq.dequantize %[[Q]]
// CHECK-NEXT: %[[READ:.*]] = quant_qdq.activation relu "read" %[[DQ]]
// CHECK-NOT: quant_qdq.quantize
// CHECK: %[[MASK:.*]] = quant_qdq.generic "Concat" "mask_cat"
// CHECK-NEXT: %[[BIAS:.*]] = quant_qdq.concat "bias_cat"
// CHECK-NEXT: return %[[DQ]], %[[READ]], %[[MASK]], %[[BIAS]]

// TWICE: # 4 layers {{.*}}; 0 Q/DQ pairs inserted, 1 uses already quantized
// TWICE: quant_qdq.quantize
// TWICE-NOT: quant_qdq.quantize

// FP8: quant_qdq.quantize %{{.*}} <bits = 8, storage = e4m3fn>

// UNKNOWN: error: unknown kv-cache 'int4': expected one of int8, fp8
