// target=onnxruntime: activations become u8 asymmetric, and the output of
// every layer with a QLinear kernel whose inputs and weight are quantized is
// quantized too, after a relu or clip(0, c) that alone reads it, so that
// ONNX Runtime forms QLinearConv, QLinearAdd and the rest. Pass-through
// layers with a quantized input get a pair of the same quantizer below.
// RUN: qdq-opt %s --split-input-file --insert-qdq=resnet-v1 \
// RUN:   --qdq-target=onnxruntime | FileCheck %s
// The same through the pass option, and the report's totals.
// RUN: qdq-opt %s --split-input-file \
// RUN:   --insert-qdq="cases=resnet-v1 target=onnxruntime report=-" \
// RUN:   -o /dev/null | FileCheck %s --check-prefix=REPORT
// TensorRT's placement (the default) quantizes inputs only.
// RUN: qdq-opt %s --split-input-file --insert-qdq=resnet-v1 \
// RUN:   | FileCheck %s --check-prefix=TRT
// FP8 and int16 activations have no integer kernels in ORT: the target
// adds no output pairs for them.
// RUN: qdq-opt %s --split-input-file \
// RUN:   --insert-qdq="cases=resnet-v1 target=onnxruntime activation-format=fp8" \
// RUN:   | FileCheck %s --check-prefix=FP8
// RUN: qdq-opt %s --split-input-file \
// RUN:   --insert-qdq="cases=resnet-v1 target=onnxruntime activation-format=int16" \
// RUN:   | FileCheck %s --check-prefix=FP8
// A second run changes nothing.
// RUN: qdq-opt %s --split-input-file --insert-qdq=resnet-v1 \
// RUN:   --qdq-target=onnxruntime > %t.once
// RUN: qdq-opt %t.once --split-input-file --insert-qdq=resnet-v1 \
// RUN:   --qdq-target=onnxruntime > %t.twice
// RUN: diff %t.once %t.twice

// CHECK-LABEL: func.func @block
// CHECK-DAG: %[[W2:.*]] = quant_qdq.dequantize %{{.*}} <bits = 8, axis = 0> : tensor<4x4x1x1xi8>
// CHECK-DAG: %[[W1:.*]] = quant_qdq.dequantize %{{.*}} <bits = 8, axis = 0> : tensor<4x4x3x3xi8>
// CHECK: %[[Q0:.*]] = quant_qdq.quantize %arg0 <bits = 8, is_signed = false, narrow_range = false, symmetric = false>
// CHECK-NEXT: %[[X:.*]] = quant_qdq.dequantize %[[Q0]] <bits = 8, is_signed = false, narrow_range = false, symmetric = false>
// CHECK-NEXT: %[[C1:.*]] = quant_qdq.conv2d "conv1" %[[X]], %[[W1]]
// CHECK-NEXT: %[[R1:.*]] = quant_qdq.activation relu "relu1" %[[C1]]
// CHECK-NEXT: %[[Q1:.*]] = quant_qdq.quantize %[[R1]] <bits = 8, is_signed = false
// CHECK-NEXT: %[[A1:.*]] = quant_qdq.dequantize %[[Q1]]
// CHECK-NEXT: %[[C2:.*]] = quant_qdq.conv2d "conv2" %[[A1]], %[[W2]]
// The convolution branch of the Add, which TensorRT keeps in float:
// CHECK-NEXT: %[[Q2:.*]] = quant_qdq.quantize %[[C2]] <bits = 8, is_signed = false
// CHECK-NEXT: %[[A2:.*]] = quant_qdq.dequantize %[[Q2]]
// CHECK-NEXT: %[[S:.*]] = quant_qdq.add "add" %[[A2]], %[[A1]]
// CHECK-NEXT: %[[R2:.*]] = quant_qdq.activation relu "relu2" %[[S]]
// CHECK-NEXT: %[[Q3:.*]] = quant_qdq.quantize %[[R2]] <bits = 8, is_signed = false
// CHECK-NEXT: %[[A3:.*]] = quant_qdq.dequantize %[[Q3]]
// The graph returns conv3's output: conv3 stays in float, so the max
// pooling before it needs no pair on its output, and its weight is marked
// to be stored as float values (qdq-quantize-weights).
// CHECK-NEXT: %[[M:.*]] = quant_qdq.max_pool2d "pool" %[[A3]]
// CHECK-NEXT: %[[C3:.*]] = quant_qdq.conv2d "conv3" %[[M]], %[[W2]] {quant_qdq.float_kernel}
// CHECK-NEXT: return %[[C3]]
// REPORT: # 7 layers {{.*}}; 6 Q/DQ pairs inserted, 0 uses already quantized
// REPORT-NEXT: # target onnxruntime, outputs quantized: 3 of layers with a QLinear kernel, 0 of pass-through layers; 0 biases exported as an Add (QGemm); 1 layers left in float by ORT, their weights stored as float
// TRT-LABEL: func.func @block
// TRT: quant_qdq.quantize %arg0 <bits = 8>
// TRT: %[[C2:.*]] = quant_qdq.conv2d "conv2"
// TRT-NEXT: quant_qdq.add "add" %[[C2]],
// TRT: %[[M:.*]] = quant_qdq.max_pool2d "pool" %{{.*}}
// TRT-NEXT: quant_qdq.conv2d "conv3" %[[M]],
// FP8-LABEL: func.func @block
// FP8: %[[C2:.*]] = quant_qdq.conv2d "conv2"
// FP8-NEXT: quant_qdq.add "add" %[[C2]],
func.func @block(%x: tensor<1x4x8x8xf32>, %w1: tensor<4x4x3x3xf32>, %w2: tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %c1 = quant_qdq.conv2d "conv1" %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %r1 = quant_qdq.activation relu "relu1" %c1 : tensor<1x4x8x8xf32>
  %c2 = quant_qdq.conv2d "conv2" %r1, %w2 : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %s = quant_qdq.add "add" %c2, %r1 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r2 = quant_qdq.activation relu "relu2" %s : tensor<1x4x8x8xf32>
  %m = quant_qdq.max_pool2d "pool" %r2 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %c3 = quant_qdq.conv2d "conv3" %m, %w2 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  return %c3 : tensor<1x4x4x4xf32>
}

// -----

// Which activation ORT removes in front of the quantize: relu6 and
// clip(0, c) do (the pair follows them). A swish splits into a sigmoid and
// a product, each quantized (QLinearSigmoid, QLinearMul), so the pair
// follows the convolution. clip(-1, 1) has no integer kernel: quantizing
// the convolution's output would buy nothing, and it stays in float.
// CHECK-LABEL: func.func @activations
// CHECK: %[[C1:.*]] = quant_qdq.conv2d "relu6_conv"
// CHECK-NEXT: %[[A1:.*]] = quant_qdq.activation relu6 "relu6" %[[C1]]
// CHECK-NEXT: quant_qdq.quantize %[[A1]]
// CHECK: %[[C2:.*]] = quant_qdq.conv2d "clip_conv"
// CHECK-NEXT: %[[A2:.*]] = quant_qdq.activation clip "clip06" %[[C2]]
// CHECK-NEXT: quant_qdq.quantize %[[A2]]
// CHECK: %[[C3:.*]] = quant_qdq.conv2d "swish_conv"
// CHECK-NEXT: %[[Q3:.*]] = quant_qdq.quantize %[[C3]]
// CHECK-NEXT: %[[D3:.*]] = quant_qdq.dequantize %[[Q3]]
// CHECK-NEXT: %[[S:.*]] = quant_qdq.activation sigmoid "swish/sigmoid" %[[D3]]
// CHECK-NEXT: %[[QS:.*]] = quant_qdq.quantize %[[S]]
// CHECK-NEXT: %[[DS:.*]] = quant_qdq.dequantize %[[QS]]
// CHECK-NEXT: %[[M:.*]] = quant_qdq.multiply "swish/mul" %[[D3]], %[[DS]]
// CHECK-NEXT: %[[QM:.*]] = quant_qdq.quantize %[[M]]
// CHECK-NEXT: %[[DM:.*]] = quant_qdq.dequantize %[[QM]]
// CHECK-NEXT: %[[C4:.*]] = quant_qdq.conv2d "tanh_clip_conv" %[[DM]], %{{.*}} {quant_qdq.float_kernel}
// CHECK-NEXT: %[[A4:.*]] = quant_qdq.activation clip "clip11" %[[C4]]
// CHECK-NEXT: return %[[A4]]
// The report still names the swish the target split (and erased).
// REPORT: {{^}}swish {{ *}}Activation {{ *}}[] {{ *}}no
// A swish that TensorRT's placement sees stays whole.
// TRT-LABEL: func.func @activations
// TRT: quant_qdq.activation swish "swish"
func.func @activations(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %c1 = quant_qdq.conv2d "relu6_conv" %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %a1 = quant_qdq.activation relu6 "relu6" %c1 : tensor<1x4x4x4xf32>
  %c2 = quant_qdq.conv2d "clip_conv" %a1, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %a2 = quant_qdq.activation clip "clip06" %c2 {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x4x4x4xf32>
  %c3 = quant_qdq.conv2d "swish_conv" %a2, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %a3 = quant_qdq.activation swish "swish" %c3 : tensor<1x4x4x4xf32>
  %c4 = quant_qdq.conv2d "tanh_clip_conv" %a3, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %a4 = quant_qdq.activation clip "clip11" %c4 {min = -1.0 : f32, max = 1.0 : f32} : tensor<1x4x4x4xf32>
  return %a4 : tensor<1x4x4x4xf32>
}

// -----

// An output is quantized only where a reader then runs on integers: not
// for a softmax after a fully connected layer (ORT's QGemm and
// MatMulIntegerToFloat take a float output), a layer normalization after a
// convolution and a transpose (ConvNeXt's, Swin's patch embedding), or a
// Multiply whose other input stays in float.
// CHECK-LABEL: func.func @left_alone
// CHECK: %[[D:.*]] = quant_qdq.dense "fc" %{{[0-9]+}}, %{{[0-9]+}} :
// CHECK-NEXT: %[[S:.*]] = quant_qdq.softmax "softmax" %[[D]]
// CHECK: %[[C:.*]] = quant_qdq.conv2d "conv" {{.*}} {quant_qdq.float_kernel}
// CHECK-NEXT: %[[M:.*]] = quant_qdq.multiply "scale" %[[C]], %arg3
// CHECK-NEXT: %[[R:.*]] = quant_qdq.activation relu "relu" %[[M]]
// CHECK: %[[E:.*]] = quant_qdq.conv2d "embed"
// CHECK-NEXT: %[[T:.*]] = quant_qdq.transpose "to_nhwc" %[[E]]
// CHECK-NEXT: %[[N:.*]] = quant_qdq.layer_norm "norm" %[[T]]
// CHECK-NEXT: return %[[S]], %[[R]], %[[N]]
func.func @left_alone(%x: tensor<2x8xf32>, %w: tensor<8x8xf32>, %image: tensor<1x4x4x4xf32>, %gate: tensor<1x4x4x4xf32>, %k: tensor<4x4x1x1xf32>, %g: tensor<4xf32>) -> (tensor<2x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %d = quant_qdq.dense "fc" %x, %w : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %s = quant_qdq.softmax "softmax" %d {axis = -1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %c = quant_qdq.conv2d "conv" %image, %k : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %m = quant_qdq.multiply "scale" %c, %gate : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %r = quant_qdq.activation relu "relu" %m : tensor<1x4x4x4xf32>
  %e = quant_qdq.conv2d "embed" %image, %k : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %t = quant_qdq.transpose "to_nhwc" %e {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %n = quant_qdq.layer_norm "norm" %t scale %g bias %g {axis = -1 : i64} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %s, %r, %n : tensor<2x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// The groups are found as a whole, not layer by layer: two convolutions
// feeding one Multiply, or one Concatenate (SqueezeNet's fire module), that
// no case quantizes each wait for the other to be quantized; both are.
// CHECK-LABEL: func.func @joined
// CHECK: %[[A:.*]] = quant_qdq.conv2d "main"
// CHECK-NEXT: %[[QA:.*]] = quant_qdq.quantize %[[A]]
// CHECK-NEXT: %[[DA:.*]] = quant_qdq.dequantize %[[QA]]
// CHECK-NEXT: %[[B:.*]] = quant_qdq.conv2d "short"
// CHECK-NEXT: %[[QB:.*]] = quant_qdq.quantize %[[B]]
// CHECK-NEXT: %[[DB:.*]] = quant_qdq.dequantize %[[QB]]
// CHECK-NEXT: %[[S:.*]] = quant_qdq.multiply "mul" %[[DA]], %[[DB]]
// CHECK-NEXT: %[[R:.*]] = quant_qdq.activation relu "relu" %[[S]]
// CHECK-NEXT: %[[QR:.*]] = quant_qdq.quantize %[[R]]
// CHECK: %[[E1:.*]] = quant_qdq.activation relu "e1r"
// CHECK-NEXT: %[[Q1:.*]] = quant_qdq.quantize %[[E1]]
// CHECK-NEXT: %[[D1:.*]] = quant_qdq.dequantize %[[Q1]]
// CHECK: %[[E3:.*]] = quant_qdq.activation relu "e3r"
// CHECK-NEXT: %[[Q3:.*]] = quant_qdq.quantize %[[E3]]
// CHECK-NEXT: %[[D3:.*]] = quant_qdq.dequantize %[[Q3]]
// CHECK-NEXT: %[[C:.*]] = quant_qdq.concat "cat" %[[D1]], %[[D3]]
// CHECK-NEXT: quant_qdq.quantize %[[C]]
// A fully connected layer with quantized input and weight and a bias is
// marked for export to write the bias as an Add after the Gemm (QGemm).
// CHECK: quant_qdq.dense "fc" {{.*}} {quant_qdq.separate_bias}
func.func @joined(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>, %w8: tensor<4x8x1x1xf32>, %fw: tensor<64x10xf32>, %fb: tensor<10xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x10xf32>) {
  %a = quant_qdq.conv2d "main" %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %b = quant_qdq.conv2d "short" %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %s = quant_qdq.multiply "mul" %a, %b : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %r = quant_qdq.activation relu "relu" %s : tensor<1x4x4x4xf32>
  %e1 = quant_qdq.conv2d "e1" %r, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %e1r = quant_qdq.activation relu "e1r" %e1 : tensor<1x4x4x4xf32>
  %e3 = quant_qdq.conv2d "e3" %r, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %e3r = quant_qdq.activation relu "e3r" %e3 : tensor<1x4x4x4xf32>
  %c = quant_qdq.concat "cat" %e1r, %e3r {axis = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x8x4x4xf32>
  %y = quant_qdq.conv2d "squeeze" %c, %w8 : (tensor<1x8x4x4xf32>, tensor<4x8x1x1xf32>) -> tensor<1x4x4x4xf32>
  %f = quant_qdq.flatten "flatten" %c : (tensor<1x8x4x4xf32>) -> tensor<1x128xf32>
  %f64 = quant_qdq.reshape "half" %f {shape = array<i64: 2, 64>} : (tensor<1x128xf32>) -> tensor<2x64xf32>
  %fc = quant_qdq.dense "fc" %f64, %fw, %fb : (tensor<2x64xf32>, tensor<64x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  %fc1 = quant_qdq.reshape "first" %fc {shape = array<i64: 1, 20>} : (tensor<2x10xf32>) -> tensor<1x20xf32>
  %fc2 = quant_qdq.generic "Slice" "take" %fc1 : (tensor<1x20xf32>) -> tensor<1x10xf32>
  return %y, %fc2 : tensor<1x4x4x4xf32>, tensor<1x10xf32>
}

// -----

// A pair already in the model that comes after another reader of its
// tensor (an imported QDQ model) is not shared with that reader: the
// target gives it a pair of its own, so every use stays dominated.
// CHECK-LABEL: func.func @late_pair
// CHECK: %[[C:.*]] = quant_qdq.conv2d "conv"
// CHECK-NEXT: %[[Q:.*]] = quant_qdq.quantize %[[C]]
// CHECK-NEXT: %[[D:.*]] = quant_qdq.dequantize %[[Q]]
// CHECK-NEXT: quant_qdq.add "add" %[[D]],
func.func @late_pair(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %q0 = quant_qdq.quantize %x <bits = 8, is_signed = false, narrow_range = false, symmetric = false> : tensor<1x4x4x4xf32> -> tensor<1x4x4x4xi8>
  %d0 = quant_qdq.dequantize %q0 <bits = 8, is_signed = false, narrow_range = false, symmetric = false> : tensor<1x4x4x4xi8> -> tensor<1x4x4x4xf32>
  %c = quant_qdq.conv2d "conv" %d0, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %a = quant_qdq.add "add" %c, %d0 : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %q1 = quant_qdq.quantize %c <bits = 8, is_signed = false, narrow_range = false, symmetric = false> : tensor<1x4x4x4xf32> -> tensor<1x4x4x4xi8>
  %d1 = quant_qdq.dequantize %q1 <bits = 8, is_signed = false, narrow_range = false, symmetric = false> : tensor<1x4x4x4xi8> -> tensor<1x4x4x4xf32>
  %m = quant_qdq.max_pool2d "pool" %d1 {kernel_shape = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %a, %m : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// target must name a runtime.
// RUN: not qdq-opt %s --split-input-file --insert-qdq --qdq-target=tflite \
// RUN:   2>&1 | FileCheck %s --check-prefix=ERROR
// ERROR: error: target must be tensorrt or onnxruntime, got 'tflite'
func.func @any(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  return %x : tensor<1x4xf32>
}
