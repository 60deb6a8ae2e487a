#!/usr/bin/env python3
"""Bias correction on held-out inputs: CNNs whose batch-norm statistics are
re-estimated (bench/common/models.py, 64x64, 16 calibration and 8 held-out
images) and the trained digits CNN (256 calibration, 540 held-out digits),
with per-channel weight scales (the default) and per-tensor ones (a spec
entry per weighted layer class), where weight rounding shifts outputs most:

    qdq-opt model.onnx --insert-qdq=<case> [--qdq-spec=per_tensor.json]
        [--qdq-bias-correction=calib.npy] --calibrate=calib.npy -o q.onnx

The logits' SQNR against FP32 in ONNX Runtime, and top-1 for the digits.

usage: bench/accuracy/bias_correction.py [build-dir] [models...]
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
from common import models, ort, specs  # noqa: E402

build = Path(sys.argv[1]) if len(sys.argv) > 1 else here.parent.parent / "build"
qdq_opt = build / "bin" / "qdq-opt"
MODELS = sys.argv[2:] or models.SMALL_CNNS


def main():
    work = Path(tempfile.mkdtemp(prefix="qdq-bias-correction-"))
    per_tensor = specs.write_per_tensor_weights(work / "per_tensor.json")
    print(f"{'model':<16} {'weights':<12} {'plain dB':>9} {'corrected dB':>13}"
          f" {'plain top-1':>12} {'corrected top-1':>16}")
    for name in MODELS:
        model = models.small_cnn(name, work, digits_calib=256)
        calib = work / f"{name}-calib.npy"
        np.save(calib, model.calibration)
        reference = ort.outputs(model.onnx, model.evaluation)
        for scales, spec in [("per-channel", []),
                             ("per-tensor", [f"--qdq-spec={per_tensor}"])]:
            row = []
            for corrected in (False, True):
                out = work / f"{name}-{scales}-{corrected}.onnx"
                extra = [f"--qdq-bias-correction={calib}"] if corrected else []
                subprocess.run([str(qdq_opt), str(model.onnx),
                                f"--insert-qdq={model.case}", *spec, *extra,
                                f"--calibrate={calib}", "-o", str(out)],
                               check=True, capture_output=True)
                got = ort.outputs(out, model.evaluation)
                top1 = (f"{ort.top1_percent(got, model.labels):.2f}%"
                        if model.labels is not None else "")
                row.append((ort.sqnr_db(reference, got), top1))
            (p, pt), (c, ct) = row
            print(f"{name:<16} {scales:<12} {p:>9.2f} {c:>13.2f} {pt:>12} "
                  f"{ct:>16}")


if __name__ == "__main__":
    main()
