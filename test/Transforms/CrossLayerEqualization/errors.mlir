// RUN: qdq-opt %s --qdq-equalize --split-input-file --verify-diagnostics
// RUN: qdq-opt %s --qdq-equalize=report=- --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=EMPTY
// RUN: not qdq-opt %s --qdq-equalize="max-sweeps=0" --split-input-file 2>&1 | FileCheck %s --check-prefix=SWEEPS
// RUN: not qdq-opt %s --qdq-equalize="report=%t.missing/report.txt" --split-input-file 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not qdq-opt %s --qdq-quantize="equalize=true load=%t.table.json" --split-input-file 2>&1 | FileCheck %s --check-prefix=LOAD

// SWEEPS: error: qdq-equalize: max-sweeps must be positive
// REPORT: error: cannot write the equalization report:
// EMPTY: qdq-equalize: 0 pairs, 1 sweeps
// LOAD: equalize=true rescales the activations that a loaded calibration table (load=) describes: calibrate on data instead

// Weights that quantizers already describe are not rescaled.
// expected-error@below {{qdq-equalize rescales float weights: run it before insert-qdq (this module already holds Q/DQ ops)}}
module {
  func.func @quantized(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %q = quant_qdq.quantize %x <bits = 8> scale [0.5] : tensor<2x3xf32> -> tensor<2x3xi8>
    %d = quant_qdq.dequantize %q <bits = 8> scale [0.5] : tensor<2x3xi8> -> tensor<2x3xf32>
    return %d : tensor<2x3xf32>
  }
}

// -----

// Stored weights that a dequantize reads (a model imported from QDQ ONNX).
// expected-error@below {{qdq-equalize rescales float weights: run it before insert-qdq (this module already holds Q/DQ ops)}}
module {
  func.func @dequantize_only(%w: tensor<2x3xi8>) -> tensor<2x3xf32> {
    %d = quant_qdq.dequantize %w <bits = 8> scale [0.5] : tensor<2x3xi8> -> tensor<2x3xf32>
    return %d : tensor<2x3xf32>
  }
}

// -----

// Quantization-aware training's fake quantization.
// expected-error@below {{qdq-equalize rescales float weights: run it before insert-qdq (this module already holds Q/DQ ops)}}
module {
  func.func @fake(%x: tensor<8xf32>) -> tensor<8xf32> {
    %y = quant_qdq.fake_quant %x <bits = 8> scale [0.5] : tensor<8xf32>
    return %y : tensor<8xf32>
  }
}

// -----

// Zero channels between two dense layers: nothing to rescale (with the
// report written).
func.func @no_channels(%x: tensor<1x3xf32>) -> tensor<1x2xf32> {
  %w1 = arith.constant dense<> : tensor<3x0xf32>
  %w2 = arith.constant dense<> : tensor<0x2xf32>
  %h = quant_qdq.dense "fc1" %x, %w1 : (tensor<1x3xf32>, tensor<3x0xf32>) -> tensor<1x0xf32>
  %y = quant_qdq.dense "fc2" %h, %w2 : (tensor<1x0xf32>, tensor<0x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

func.func @float(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %x : tensor<2x3xf32>
}
