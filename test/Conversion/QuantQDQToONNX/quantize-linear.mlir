// RUN: qdq-opt %s --split-input-file --convert-quant-qdq-to-onnx 2>/dev/null | FileCheck %s
// RUN: qdq-opt %s --split-input-file --convert-quant-qdq-to-onnx 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN
// RUN: qdq-opt %s --split-input-file --convert-quant-qdq-to-onnx --mlir-print-debuginfo 2>/dev/null | FileCheck %s --check-prefix=LOC

// Q/DQ become QuantizeLinear/DequantizeLinear reading their scale and zero
// point as constants: scalars per tensor, vectors per axis; the zero
// point's type is the storage's on the wire (int8, or uint8 for an
// unsigned quantizer, whose storage is typed ui8 from here on). A pair
// reads one set, named after the tensor it quantizes.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @pairs
func.func @pairs(%x: tensor<1x4xf32> {quant_qdq.onnx.name = "x"}) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  // CHECK: %[[S:.*]] = arith.constant dense<5.000000e-02> : tensor<f32>
  // CHECK: %[[Z:.*]] = arith.constant dense<0> : tensor<i8>
  // CHECK: %[[Q:.*]] = quant_qdq.generic "QuantizeLinear" %arg0, %[[S]], %[[Z]] {quant_qdq.tensor_names = ["x_quantized"]} : (tensor<1x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4xi8>
  // CHECK: quant_qdq.generic "DequantizeLinear" %[[Q]], %[[S]], %[[Z]] {quant_qdq.tensor_names = ["x_dequantized"]} : (tensor<1x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4xf32>
  %q = quant_qdq.quantize %x <bits = 8> scale [0.05] {quant_qdq.tensor_names = ["x_quantized"]} : tensor<1x4xf32> -> tensor<1x4xi8>
  %dq = quant_qdq.dequantize %q <bits = 8> scale [0.05] {quant_qdq.tensor_names = ["x_dequantized"]} : tensor<1x4xi8> -> tensor<1x4xf32>
  // CHECK: %[[US:.*]] = arith.constant dense<2.000000e-02> : tensor<f32>
  // CHECK: %[[UZ:.*]] = arith.constant dense<128> : tensor<ui8>
  // CHECK: %[[UQ:.*]] = quant_qdq.generic "QuantizeLinear" %arg0, %[[US]], %[[UZ]] {{.*}} -> tensor<1x4xui8>
  // CHECK: quant_qdq.generic "DequantizeLinear" %[[UQ]], %[[US]], %[[UZ]]{{.*}} : (tensor<1x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4xf32>
  %uq = quant_qdq.quantize %x <bits = 8, is_signed = false, symmetric = false> scale [0.02] zero_point [128] : tensor<1x4xf32> -> tensor<1x4xi8>
  %udq = quant_qdq.dequantize %uq <bits = 8, is_signed = false, symmetric = false> scale [0.02] zero_point [128] : tensor<1x4xi8> -> tensor<1x4xf32>
  // fake_quant is both nodes.
  // CHECK: %[[FQ:.*]] = quant_qdq.generic "QuantizeLinear" %arg0, %[[S]], %[[Z]] :
  // CHECK: quant_qdq.generic "DequantizeLinear" %[[FQ]], %[[S]], %[[Z]] :
  %fq = quant_qdq.fake_quant %x <bits = 8> scale [0.05] : tensor<1x4xf32>
  return %dq, %udq, %fq : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
}
}
// LOC-LABEL: func @pairs
// LOC-DAG: #{{loc[0-9]*}} = loc("x_scale"
// LOC-DAG: #{{loc[0-9]*}} = loc("x_zero_point"

// -----

// Per-axis weights; integer storage held as a constant
// (qdq-quantize-weights) takes the wire type.
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @weights
func.func @weights() -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> loc("w")
  // CHECK: %[[W:.*]] = arith.constant {{.*}} : tensor<2x3xf32>
  // CHECK: %[[S:.*]] = arith.constant dense<[1.000000e-01, 2.000000e-01]> : tensor<2xf32>
  // CHECK: %[[Z:.*]] = arith.constant dense<0> : tensor<2xi8>
  // CHECK: quant_qdq.generic "QuantizeLinear" %[[W]], %[[S]], %[[Z]] {layer_attributes = {axis = 0 : i64}}
  %wq = quant_qdq.quantize %w <bits = 8, axis = 0> scale [0.1, 0.2] : tensor<2x3xf32> -> tensor<2x3xi8>
  %wdq = quant_qdq.dequantize %wq <bits = 8, axis = 0> scale [0.1, 0.2] : tensor<2x3xi8> -> tensor<2x3xf32>
  // CHECK: %[[U:.*]] = arith.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xui8>
  // Its scales equal w's: they share one constant.
  // CHECK: quant_qdq.generic "DequantizeLinear" %[[U]], %[[S]], {{.*}} : (tensor<2x3xui8>, tensor<2xf32>, tensor<2xui8>) -> tensor<2x3xf32>
  %u = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8> loc("u")
  %udq = quant_qdq.dequantize %u <bits = 8, is_signed = false, symmetric = false, axis = 0> scale [0.1, 0.2] zero_point [128, 120] : tensor<2x3xi8> -> tensor<2x3xf32>
  return %wdq, %udq : tensor<2x3xf32>, tensor<2x3xf32>
}
}
// LOC-LABEL: func @weights
// LOC-DAG: #{{loc[0-9]*}} = loc("w_scale"
// LOC-DAG: #{{loc[0-9]*}} = loc("u_zero_point"

// -----

// Per-axis QuantizeLinear needs opset 13: a module below it is raised.
// WARN: quantize-linear.mlir:{{[0-9]+}}:1: warning: raising the default-domain opset from 11 to 13 for QuantizeLinear/DequantizeLinear{{$}}
// CHECK: module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64, com.example = 1 : i64}}
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 11 : i64, com.example = 1 : i64}} {
func.func @raise(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %fq = quant_qdq.fake_quant %x <bits = 8> scale [0.05] : tensor<1x4xf32>
  return %fq : tensor<1x4xf32>
}
}

// -----

// Int4 blocks and int16 need opset 21. Block scales and zero points are
// tensors of the data's rank; the zero point's type is the storage's
// (int4, uint16) and the node carries axis and block_size.
// WARN: warning: raising the default-domain opset from 17 to 21 for QuantizeLinear/DequantizeLinear{{$}}
// CHECK: module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 21 : i64}}
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 17 : i64}} {
// CHECK-LABEL: func @formats
func.func @formats(%x: tensor<1x4xf32>) -> (tensor<2x4xf32>, tensor<1x4xf32>) {
  // A node kept from the model carries the opset it was written for, from
  // which the writer converts it; the nodes the patterns write do not.
  // CHECK: quant_qdq.generic "Sqrt" %arg0 {quant_qdq.onnx.kept_node_opset = 17 : i64}
  // CHECK-NOT: kept_node_opset
  %kept = quant_qdq.generic "Sqrt" %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  // CHECK: %[[W:.*]] = arith.constant dense<{{\[}}[1, -2, 3, 7], [0, 7, -4, 0]]> : tensor<2x4xi4>
  // CHECK: %[[S:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 1.000000e+00], [1.000000e+00, 2.000000e+00]]> : tensor<2x2xf32>
  // CHECK: %[[Z:.*]] = arith.constant dense<0> : tensor<2x2xi4>
  // CHECK: quant_qdq.generic "DequantizeLinear" %[[W]], %[[S]], %[[Z]] {layer_attributes = {axis = 1 : i64, block_size = 2 : i64}} : (tensor<2x4xi4>, tensor<2x2xf32>, tensor<2x2xi4>) -> tensor<2x4xf32>
  %w = arith.constant dense<[[1, -2, 3, 7], [0, 7, -4, 0]]> : tensor<2x4xi4>
  %wdq = quant_qdq.dequantize %w <bits = 4, axis = 1, block_size = 2> scale [1.0, 1.0, 1.0, 2.0] : tensor<2x4xi4> -> tensor<2x4xf32>
  // CHECK: %[[AZ:.*]] = arith.constant dense<32768> : tensor<ui16>
  // CHECK: quant_qdq.generic "QuantizeLinear" %{{.*}}, %{{.*}}, %[[AZ]] {{.*}}-> tensor<1x4xui16>
  %fq = quant_qdq.fake_quant %kept <bits = 16, is_signed = false, symmetric = false> scale [0.001] zero_point [32768] : tensor<1x4xf32>
  return %wdq, %fq : tensor<2x4xf32>, tensor<1x4xf32>
}
}

// -----

// FP8 needs opset 19; its zero point is a float8e4m3fn zero.
// WARN: warning: raising the default-domain opset from 13 to 19 for QuantizeLinear/DequantizeLinear{{$}}
// CHECK: module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 19 : i64}}
module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 13 : i64}} {
// CHECK-LABEL: func @fp8
func.func @fp8(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<f8E4M3FN>
  // CHECK: %[[Q:.*]] = quant_qdq.generic "QuantizeLinear" %arg0, %{{.*}}, %[[Z]] {{.*}}-> tensor<1x4xf8E4M3FN>
  // CHECK: quant_qdq.generic "DequantizeLinear" %[[Q]], %{{.*}}, %[[Z]]
  %fq = quant_qdq.fake_quant %x <bits = 8, storage = e4m3fn> scale [0.01] : tensor<1x4xf32>
  return %fq : tensor<1x4xf32>
}
}

// -----

// A module that records no opset (Keras, MLIR) takes the one its Q/DQ
// need, without a warning: nothing was written for another.
// CHECK: module attributes {quant_qdq.onnx.opset_import = {ai.onnx = 21 : i64}}
// CHECK-LABEL: func @no_opset
func.func @no_opset(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %fq = quant_qdq.fake_quant %x <bits = 4> scale [0.5] : tensor<1x4xf32>
  return %fq : tensor<1x4xf32>
}
