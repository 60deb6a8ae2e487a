#!/usr/bin/env python3
"""Quantizes one ONNX model with one of the peers, in a process of its own
so that bench/peers/run.py measures its wall time and peak memory alone.

    quantize_with_peer.py ort|modelopt METHOD MODEL.onnx CALIB.npy OUT.onnx

Settings (the same for every model; RESULTS.md repeats them):
- ort: onnxruntime.quantization.quantize_static, QDQ format, QInt8
  activations and weights, symmetric both (ActivationSymmetric,
  WeightSymmetric, CalibTensorRangeSymmetric), per-channel weights, no
  pre-processing (the same file every tool gets). METHOD: minmax, entropy,
  percentile (99.999). quantize_static gives its entropy calibrator 128
  histogram bins for 128 quantized bins, a single candidate threshold (the
  full range, i.e. MinMax again), and passes no option that changes it; here
  its calibrator factory is wrapped to ask for 2048 bins, as TensorRT's
  entropy calibration does, so that entropy is a real search.
- modelopt: modelopt.onnx.quantization.quantize, quantize_mode int8,
  calibration on the CPU execution provider, high_precision_dtype fp32 (its
  default, fp16, targets TensorRT and would change the float part on the CPU).
  METHOD: max, entropy.

Each calibration input is fed as its own batch of one.
"""
import sys

import numpy as np


def calibration_batches(model, calib):
    import onnx
    name = onnx.load(model, load_external_data=False).graph.input[0].name
    return name, [{name: calib[i:i + 1]} for i in range(len(calib))]


def quantize_ort(method, model, calib, out):
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod,
                                          QuantFormat, QuantType, quantize_static)
    # The module, not the function of the same name the package exports.
    ort_quantize = sys.modules["onnxruntime.quantization.quantize"]

    methods = {"minmax": CalibrationMethod.MinMax,
               "entropy": CalibrationMethod.Entropy,
               "percentile": CalibrationMethod.Percentile}
    if method not in methods:
        sys.exit(f"ort: unknown method {method} (minmax, entropy, percentile)")
    if method == "entropy":
        make = ort_quantize.create_calibrator

        def with_histogram(*args, **kwargs):
            options = dict(kwargs.get("extra_options") or {})
            options.setdefault("num_bins", 2048)
            options.setdefault("num_quantized_bins", 128)
            kwargs["extra_options"] = options
            return make(*args, **kwargs)

        ort_quantize.create_calibrator = with_histogram

    _, batches = calibration_batches(model, calib)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.items = iter(batches)

        def get_next(self):
            return next(self.items, None)

    quantize_static(model, out, Reader(), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
                    per_channel=True, calibrate_method=methods[method],
                    extra_options={"ActivationSymmetric": True,
                                   "WeightSymmetric": True,
                                   "CalibTensorRangeSymmetric": True})


def quantize_modelopt(method, model, calib, out):
    from modelopt.onnx.quantization import quantize

    if method not in ("max", "entropy"):
        sys.exit(f"modelopt: unknown method {method} (max, entropy)")
    name, _ = calibration_batches(model, calib)
    quantize(model, quantize_mode="int8", calibration_data={name: calib},
             calibration_method=method, calibration_eps=["cpu"],
             high_precision_dtype="fp32", output_path=out, log_level="WARNING")


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    tool, method, model, calib_path, out = sys.argv[1:]
    calib = np.load(calib_path)
    {"ort": quantize_ort, "modelopt": quantize_modelopt}[tool](method, model, calib, out)


if __name__ == "__main__":
    main()
