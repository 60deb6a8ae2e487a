// Asymmetric quantizers (u8 of --qdq-target=onnxruntime, TFMOT's) clip
// where the calibration method clips: the method's threshold bounds both
// ends of the observed [min, max]. And a pass-through layer quantized
// before and after takes its input's range, so both pairs agree.
// The data: 4 samples of 2x4x4 values in [0, 1), and one outlier of 50.
// RUN: %python -c "import numpy as np; x = np.random.RandomState(0).rand(4, 2, 4, 4).astype(np.float32); x[0, 0, 0, 0] = 50; np.save('%t.npy', x)"
// RUN: qdq-opt %s --insert-qdq --qdq-target=onnxruntime \
// RUN:   --calibrate="data=%t.npy method=max" | FileCheck %s --check-prefix=MAX
// RUN: qdq-opt %s --insert-qdq --qdq-target=onnxruntime \
// RUN:   --calibrate="data=%t.npy method=percentile percentile=99" \
// RUN:   | FileCheck %s --check-prefix=PERCENTILE

func.func @net(%x: tensor<1x2x4x4xf32>) -> tensor<1x3xf32> {
  %w = arith.constant dense<[[[[1.0]], [[0.0]]], [[[0.0]], [[1.0]]]]> : tensor<2x2x1x1xf32>
  %c = quant_qdq.conv2d "conv" %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = quant_qdq.activation relu "relu" %c : tensor<1x2x4x4xf32>
  %m = quant_qdq.max_pool2d "pool" %r {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %h = quant_qdq.conv2d "head" %m, %w : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %f = quant_qdq.flatten "flatten" %h : (tensor<1x2x2x2xf32>) -> tensor<1x8xf32>
  %k = arith.constant dense<0.5> : tensor<8x3xf32>
  %y = quant_qdq.dense "fc" %f, %k : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// max: the outlier sets the input's range, [0, 50]: 50 / 255.
// MAX: quant_qdq.quantize %arg0 <bits = 8, is_signed = false, narrow_range = false, symmetric = false> scale [1.960784e-01]
// The identity convolution's relu output holds the same values; the max
// pooling's output, whose own values differ, takes the relu output's
// scale and zero point.
// MAX: quant_qdq.activation relu "relu"
// MAX-NEXT: quant_qdq.quantize %{{.*}} scale [1.960784e-01]
// MAX: quant_qdq.max_pool2d "pool"
// MAX-NEXT: quant_qdq.quantize %{{.*}} scale [1.960784e-01]

// percentile: the 99th percentile of |x| bounds the range, about 0.98 / 255
// = 3.8e-03, where max gives 50 / 255.
// PERCENTILE: quant_qdq.quantize %arg0 <{{.*}}> scale [3.{{[0-9]+}}e-03]
// PERCENTILE: quant_qdq.activation relu "relu"
// PERCENTILE-NEXT: quant_qdq.quantize %{{.*}} scale {{\[}}[[SCALE:[0-9.e+-]+]]]
// PERCENTILE: quant_qdq.max_pool2d "pool"
// PERCENTILE-NEXT: quant_qdq.quantize %{{.*}} scale {{\[}}[[SCALE]]]
