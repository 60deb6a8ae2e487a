// Q/DQ pairs without scales, as insert-qdq leaves them: the weight gets
// per-channel scales max|w| / 127 computed from the constant, the activation
// the toolkit's initial range 6 / 127 with a warning. By default
// (--onnx-weights=int8) the weight is stored quantized (round half to even)
// and only dequantized at run time; --onnx-weights=float keeps the float
// weight and its QuantizeLinear.

// RUN: qdq-translate --export-onnx --onnx-weights=float %s -o %t.onnx 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %python %S/Inputs/dump_model.py %t.onnx | FileCheck %s
// RUN: qdq-translate --export-onnx %s -o %t.int8.onnx 2>/dev/null
// RUN: %python %S/Inputs/dump_model.py %t.int8.onnx | FileCheck %s --check-prefix=INT8
// RUN: qdq-translate --export-onnx --onnx-weights=int8 %s -o %t.int8-explicit.onnx 2>/dev/null
// RUN: cmp %t.int8.onnx %t.int8-explicit.onnx
// RUN: qdq-translate --export-onnx --onnx-activation-amax=12.7 %s -o %t.amax.onnx 2>/dev/null
// RUN: %python %S/Inputs/dump_model.py %t.amax.onnx | FileCheck %s --check-prefix=AMAX

// WARN: warning: activations are uncalibrated: their Q/DQ use the initial range amax = 6.000000e+00 (scale = amax / 127)

func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense<[[[[1.0]], [[-2.0]]], [[[0.5]], [[0.25]]]]> : tensor<2x2x1x1xf32> loc("conv.weight")
  %q = quant_qdq.quantize %x <bits = 8> : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xi8>
  %dq = quant_qdq.dequantize %q <bits = 8> : tensor<1x2x4x4xi8> -> tensor<1x2x4x4xf32>
  %wq = quant_qdq.quantize %w <bits = 8, axis = 0> : tensor<2x2x1x1xf32> -> tensor<2x2x1x1xi8>
  %wdq = quant_qdq.dequantize %wq <bits = 8, axis = 0> : tensor<2x2x1x1xi8> -> tensor<2x2x1x1xf32>
  %y = quant_qdq.conv2d "conv" %dq, %wdq : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// CHECK: ir_version: 8
// CHECK: opsets: [('', 17)]
// CHECK: producer: quant-qdq
// CHECK: graph: main
// CHECK: input: input_0 FLOAT[1,2,4,4]
// CHECK: output: output_0 FLOAT[1,2,4,4]
// CHECK-DAG: initializer: input_0_scale FLOAT [] = 0.0472441
// CHECK-DAG: initializer: input_0_zero_point INT8 [] = 0
// CHECK-DAG: initializer: conv.weight FLOAT [2, 2, 1, 1] = [1.0, -2.0, 0.5, 0.25]
// CHECK-DAG: initializer: conv.weight_scale FLOAT [2] = [0.015748, 0.00393701]
// CHECK-DAG: initializer: conv.weight_zero_point INT8 [2] = [0, 0]
// Q/DQ outputs are named after the tensor they stand for (qdq-name-tensors).
// CHECK: node: QuantizeLinear QuantizeLinear_0 (input_0, input_0_scale, input_0_zero_point) -> (input_0_quantized)
// CHECK-NEXT: node: DequantizeLinear DequantizeLinear_1 (input_0_quantized, input_0_scale, input_0_zero_point) -> (input_0_dequantized)
// CHECK-NEXT: node: QuantizeLinear QuantizeLinear_2 (conv.weight, conv.weight_scale, conv.weight_zero_point) -> (conv.weight_quantized) axis=0
// CHECK-NEXT: node: DequantizeLinear DequantizeLinear_3 (conv.weight_quantized, conv.weight_scale, conv.weight_zero_point) -> (conv.weight_dequantized) axis=0
// CHECK-NEXT: node: Conv conv (input_0_dequantized, conv.weight_dequantized) -> (output_0) dilations=[1, 1] group=1 kernel_shape=[1, 1] pads=[0, 0, 0, 0] strides=[1, 1]

// INT8: initializer: conv.weight_quantized INT8 [2, 2, 1, 1] = [64, -127, 127, 64]
// INT8-NOT: node: QuantizeLinear {{.*}}(conv.weight,
// INT8: node: DequantizeLinear DequantizeLinear_2 (conv.weight_quantized, conv.weight_quantized_scale, conv.weight_quantized_zero_point) -> (conv.weight_dequantized) axis=0

// AMAX: initializer: input_0_scale FLOAT [] = 0.1
