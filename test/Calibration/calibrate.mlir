// The calibrate pass sets activation scales from data and weight scales
// from values. The data: 4 samples whose largest magnitude is 2.54 at the
// input and 1.27 after the relu (half of them are negated).
// RUN: %python -c "import numpy as np; x = np.linspace(-1, 1, 4*2*3*3, dtype=np.float32).reshape(4, 2, 3, 3); x[0,0,0,0] = -2.54; x[3,1,2,2] = 1.27; np.save('%t.npy', x)"
// RUN: qdq-opt %s --insert-qdq --calibrate=%t.npy | FileCheck %s
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t.npy save=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// A saved table gives the same scales without running the model:
// RUN: qdq-opt %s --insert-qdq --calibrate="load=%t.json" | FileCheck %s
// RUN: qdq-opt %s --insert-qdq --calibrate="data=%t.npy save=%t.cache" -o /dev/null
// RUN: FileCheck %s --check-prefix=TRT < %t.cache
// RUN: qdq-opt %s --insert-qdq --calibrate="load=%t.cache" | FileCheck %s

func.func @net(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = arith.constant dense<[[[[0.5]], [[-0.25]]], [[[1.27]], [[0.1]]]]> : tensor<2x2x1x1xf32>
  %c = quant_qdq.conv2d "conv" %x, %w : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %r = quant_qdq.activation relu "relu" %c : tensor<1x2x3x3xf32>
  %p = quant_qdq.avg_pool2d "pool" %r {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %p : tensor<1x2x3x3xf32>
}

// amax / 127: 2.54 / 127 = 0.02 for the input; the weight per output
// channel, 0.5 / 127 and 1.27 / 127.
// CHECK: quant_qdq.quantize %arg0 <bits = 8> scale [2.000000e-02]
// CHECK: quant_qdq.dequantize %{{.*}} <bits = 8> scale [2.000000e-02]
// CHECK: quant_qdq.quantize %{{.*}} <bits = 8, axis = 0> scale [3.937008e-03, 1.000000e-02]
// CHECK: quant_qdq.activation relu "relu"
// CHECK-NEXT: quant_qdq.quantize %{{.*}} <bits = 8> scale [

// JSON: "method": "max",
// JSON: "input_0": {
// JSON-NEXT: "amax": 2.5399999618530273,
// JSON: "relu_output_0": {

// TRT: TRT-8600-MinMaxCalibration
// TRT-NEXT: input_0: 3ca3d70a
// TRT-NEXT: relu_output_0: {{[0-9a-f]+$}}
