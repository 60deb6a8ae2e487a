// Calibration tables and export name tensors alike (qdq-name-tensors), so
// that a table, or a TensorRT cache, written by calibration names the
// tensors of the model it was written for, and two tensors never share an
// entry.
// - Two layers named `act`: two entries with their own ranges (once merged
//   into one entry holding the larger range, silently), exported under the
//   same names.
// - An unnamed relu: the same name in the table and in the exported model
//   (once `quant_qdq.activation_<position>_output_0` against `Relu_<k>`).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.linspace(-1, 1, 2*2*2*2, dtype=np.float32).reshape(2, 2, 2, 2))"
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy save=%t/table.json" -o %t/model.onnx
// RUN: FileCheck %s --check-prefix=TABLE < %t/table.json
// RUN: %python %S/../Target/ONNX/Inputs/dump_model.py %t/model.onnx | FileCheck %s --check-prefix=ONNX
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t/x.npy save=%t/table.cache" -o /dev/null
// RUN: FileCheck %s --check-prefix=CACHE < %t/table.cache

func.func @net(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x1x1xf32> {
  %ten = arith.constant dense<[[[[10.0]], [[0.0]]], [[[0.0]], [[10.0]]]]> : tensor<2x2x1x1xf32>
  %half = arith.constant dense<[[[[0.5]], [[0.0]]], [[[0.0]], [[0.5]]]]> : tensor<2x2x1x1xf32>
  %a = quant_qdq.activation relu "act" %x : tensor<1x2x2x2xf32>
  %c1 = quant_qdq.conv2d "c1" %a, %ten : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %b = quant_qdq.activation relu "act" %c1 : tensor<1x2x2x2xf32>
  %c2 = quant_qdq.conv2d "c2" %b, %half : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %u = quant_qdq.activation relu "" %c2 : tensor<1x2x2x2xf32>
  %p = quant_qdq.avg_pool2d "pool" %u {kernel_shape = array<i64: 2, 2>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x1x1xf32>
  return %p : tensor<1x2x1x1xf32>
}

// TABLE: "act_output_0": {
// TABLE-NEXT: "amax": 1,
// TABLE: "act_1_output_0": {
// TABLE-NEXT: "amax": 10,
// TABLE: "Activation_0_output_0": {
// TABLE-NEXT: "amax": 5,

// 1 / 127, 10 / 127 and 5 / 127.
// ONNX-DAG: node: QuantizeLinear {{.*}} (act_output_0, [[A:[^,]*]], {{.*}}) -> (act_output_0_quantized)
// ONNX-DAG: initializer: [[A]] FLOAT [] = 0.00787402
// ONNX-DAG: node: QuantizeLinear {{.*}} (act_1_output_0, [[B:[^,]*]], {{.*}}) -> (act_1_output_0_quantized)
// ONNX-DAG: initializer: [[B]] FLOAT [] = 0.0787402
// ONNX-DAG: node: QuantizeLinear {{.*}} (Activation_0_output_0, [[C:[^,]*]], {{.*}}) -> (Activation_0_output_0_quantized)
// ONNX-DAG: initializer: [[C]] FLOAT [] = 0.0393701

// CACHE-DAG: act_output_0: {{[0-9a-f]+$}}
// CACHE-DAG: act_1_output_0: {{[0-9a-f]+$}}
// CACHE-DAG: Activation_0_output_0: {{[0-9a-f]+$}}
