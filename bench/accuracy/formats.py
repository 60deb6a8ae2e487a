#!/usr/bin/env python3
"""Accuracy per number format on real data: scikit-learn's handwritten
digits, for the formats insert-qdq places (issue 16).

Trains two models in a few seconds with PyTorch (bench/common/models.py):
the digits CNN (convolutions, batch norm, residual adds) and a three-layer
perceptron (matrix products only), exports them to ONNX, and for each
format runs

    qdq-opt model.onnx --qdq-quantize="cases=resnet-v1 <format options>
            data=calib.npy" -o model.<format>.onnx

(insert-qdq, then qdq-awq where `awq=true`, then calibration)

then scores the FP32 and the quantized model on the 540 held-out digits in
ONNX Runtime, which runs the Q/DQ as written (its graph rewrites off: its
CPU rewrites fuse FP8 Q/DQ around a Conv into QLinearConv, which has no
FP8 kernel). SQNR is of the logits against the FP32 model's.

usage: bench/accuracy/formats.py [build-dir] [--check-recorded]

With --check-recorded, the figures must agree with the tables of
RESULTS.md (top-1 within two of the 540 images, SQNR within 1 dB).
"""
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
from common import reproducible  # noqa: E402  (before torch)
from common import models, ort  # noqa: E402
from common.recorded import (ACCURACY_TOLERANCES,  # noqa: E402
                             accuracy_arguments, check_recorded,
                             exit_on_differences)

args = accuracy_arguments(__doc__, here.parent.parent / "build")
qdq_opt = args.build / "bin" / "qdq-opt"

# Where RESULTS.md records each model's table.
RECORDED = {"digits_cnn": "Digits CNN:", "digits_mlp": "Perceptron:"}

# (name, insert-qdq options beyond the case)
FORMATS = [
    ("W8A8 int8", ""),
    ("W8A16", "activation-format=int16"),
    ("FP8 E4M3FN", "weight-format=fp8 activation-format=fp8"),
    ("W4A8, per channel", "weight-format=int4"),
    ("W8 weight-only", "activation-format=none"),
    ("W4 weight-only, per channel", "weight-format=int4 activation-format=none"),
    ("W4 weight-only, blocks of 16",
     "weight-format=int4 activation-format=none weight-block-size=16"),
    ("W4 weight-only, blocks of 32",
     "weight-format=int4 activation-format=none weight-block-size=32"),
    ("W4 weight-only, blocks of 16, AWQ",
     "weight-format=int4 activation-format=none weight-block-size=16 awq=true"),
]


def score(path, model, reference):
    out = ort.outputs(path, model.evaluation, optimize=False)
    return ort.top1_percent(out, model.labels), ort.sqnr_db(reference, out)


def describe(path):
    """Opset and the storage types of the Q/DQ the model holds."""
    m = onnx.load(str(path))
    opset = {o.domain: o.version for o in m.opset_import}[""]
    types = sorted({onnx.TensorProto.DataType.Name(t.data_type).lower()
                    for t in m.graph.initializer if t.name.endswith("zero_point")})
    return opset, "/".join(types)


def main():
    reproducible.single_threaded_torch()
    work = Path(tempfile.mkdtemp(prefix="qdq-formats-"))
    differences = []
    for make in (models.digits_cnn, models.digits_mlp):
        start = time.time()
        model = make(work)
        np.save(work / "calib.npy", model.calibration)
        reference = ort.outputs(model.onnx, model.evaluation, optimize=False)
        fp32 = ort.top1_percent(reference, model.labels)
        print(f"\n{model.name}: {model.notes[0]}; trained and exported in "
              f"{time.time() - start:.1f} s; FP32 top-1 {fp32:.2f}%")
        print(f"{'format':<35} {'opset':>5} {'storage':<18} {'top-1':>7} "
              f"{'delta':>6} {'SQNR dB':>8}")
        measured = {}
        for index, (name, options) in enumerate(FORMATS):
            out = work / f"{model.name}.{index}.onnx"
            subprocess.run(
                [str(qdq_opt), str(model.onnx),
                 f"--qdq-quantize=cases={model.case} {options} "
                 f"data={work / 'calib.npy'}", "-o", str(out)],
                check=True, stderr=subprocess.DEVNULL)
            top1, sqnr = score(out, model, reference)
            opset, storage = describe(out)
            print(f"{name:<35} {opset:>5} {storage:<18} {top1:>6.2f}% "
                  f"{top1 - fp32:>+6.2f} {sqnr:>8.1f}")
            measured[name] = {"top-1": top1, "SQNR dB": sqnr}
        if args.check_recorded:
            differences += check_recorded(
                here / "RESULTS.md", "Accuracy per number format",
                RECORDED[model.name], measured, ACCURACY_TOLERANCES)
    exit_on_differences(differences)


if __name__ == "__main__":
    main()
