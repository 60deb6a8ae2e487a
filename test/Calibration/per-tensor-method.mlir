// A quantizer that names its calibration method gets it, whatever the
// pass's method: TFMOT's range estimators mixed in one model. Three runs of
// one sample whose ranges are [0, 1], [-4, 3] and [0, 0.5]; conv "c1" is
// the identity, so both quantized tensors see the same values.
// - the input's quantizer asks for last-value: amax 0.5, scale 0.5 / 127;
// - c1's output takes the pass's max: amax 4, scale 4 / 127;
// - with --calibration-method=last-value and the input's quantizer asking
//   for max, the two swap.
// RUN: rm -rf %t && split-file %s %t
// RUN: %python -c "import numpy as np; x = np.zeros((3, 2, 2, 2), np.float32); x[0, 0, 0, 0] = 1; x[1, 0, 0, 0] = -4; x[1, 1, 1, 1] = 3; x[2, 0, 0, 0] = 0.5; np.save('%t/x.npy', x)"
// RUN: qdq-opt %t/net.mlir --insert-qdq --qdq-spec=%t/last-value.json --qdq-report=%t/layers.txt | FileCheck %s --check-prefix=SPEC
// RUN: FileCheck %s --check-prefix=LAYERS < %t/layers.txt
// RUN: qdq-opt %t/net.mlir --insert-qdq --qdq-spec=%t/last-value.json --calibrate=%t/x.npy --calibration-report=%t/report.txt | FileCheck %s --check-prefix=MIXED
// RUN: FileCheck %s --check-prefix=REPORT < %t/report.txt
// RUN: qdq-opt %t/net.mlir --insert-qdq --qdq-spec=%t/max.json --calibrate=%t/x.npy --calibration-method=last-value | FileCheck %s --check-prefix=SWAPPED
// RUN: not qdq-opt %t/net.mlir --insert-qdq --qdq-spec=%t/weight.json 2>&1 | FileCheck %s --check-prefix=WEIGHT
// RUN: not qdq-opt %t/net.mlir --insert-qdq --qdq-spec=%t/unknown.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: qdq-opt %t/conflict.mlir --calibrate=%t/x.npy 2>&1 | FileCheck %s --check-prefix=CONFLICT

// The spec's method lands on the input's quantizer only, not on the weight's.
// SPEC: quant_qdq.quantize %arg0 <bits = 8, calibration = "last-value">
// SPEC: quant_qdq.quantize %{{.*}} <bits = 8, axis = 0> :
// SPEC: quant_qdq.quantize %{{.*}} <bits = 8> :

// The layer report names the method with the rule that set it.
// LAYERS: c1 Conv2D [0] yes spec 'c1'; calibration last-value
// LAYERS-NEXT: c2 Conv2D [0] yes default table

// MIXED: quant_qdq.quantize %arg0 <bits = 8, calibration = "last-value"> scale [3.937008e-03]
// MIXED: quant_qdq.conv2d "c1"
// MIXED: quant_qdq.quantize %{{.*}} <bits = 8> scale [3.149606e-02]

// REPORT: input_0 {{.*}} 0.50 (16.67%)*
// REPORT-NEXT: c1_output_0 4.00 (0.00%)*
// REPORT: 2 tensors; * the method used (max, 1 by their quantizer's own)

// SWAPPED: quant_qdq.quantize %arg0 <bits = 8, calibration = max> scale [3.149606e-02]
// SWAPPED: quant_qdq.quantize %{{.*}} <bits = 8> scale [3.937008e-03]

// WEIGHT: weight.json:1:53: error: weights are scaled from their values: a weight's calibration is max or mse
// UNKNOWN: unknown.json:1:52: error: calibration must be one of max, percentile, entropy, mse, last-value, moving-average

// CONFLICT: warning: this quantizer asks for max calibration, another of the same tensor for last-value; the tensor has one range: the first quantizer's
// CONFLICT: quant_qdq.quantize %arg0 <bits = 8, calibration = "last-value"> scale [3.937008e-03]

//--- net.mlir
func.func @net(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = arith.constant dense<[[[[1.0]], [[0.0]]], [[[0.0]], [[1.0]]]]> : tensor<2x2x1x1xf32>
  %c1 = quant_qdq.conv2d "c1" %x, %w : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %c2 = quant_qdq.conv2d "c2" %c1, %w : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  return %c2 : tensor<1x2x2x2xf32>
}
//--- last-value.json
[{"name": "c1", "quantizer": {"calibration": "last-value"}}]
//--- max.json
[{"name": "c1", "input_quantizer": {"calibration": "max"}}]
//--- weight.json
[{"name": "c1", "weight_quantizer": {"calibration": "entropy"}}]
//--- unknown.json
[{"name": "c1", "input_quantizer": {"calibration": "kl"}}]
//--- conflict.mlir
func.func @net(%x: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %q1 = quant_qdq.quantize %x <bits = 8, calibration = "last-value"> : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xi8>
  %d1 = quant_qdq.dequantize %q1 <bits = 8, calibration = "last-value"> : tensor<1x2x2x2xi8> -> tensor<1x2x2x2xf32>
  %q2 = quant_qdq.quantize %x <bits = 8, calibration = max> : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xi8>
  %d2 = quant_qdq.dequantize %q2 <bits = 8, calibration = max> : tensor<1x2x2x2xi8> -> tensor<1x2x2x2xf32>
  return %d1, %d2 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}
