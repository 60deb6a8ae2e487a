#!/usr/bin/env python3
"""Calibration that never collapses: each method's ranges, the check that
replaces a histogram method's when they cost over 0.5 dB against max's, and
method=auto, on CNNs whose batch-norm statistics are re-estimated
(bench/common/models.py) and on the trained digits CNN.

For each model and method,

    qdq-opt model.onnx --insert-qdq=<case>
        --calibrate="data=calib.npy method=<m> [check-ranges=false]" -o q.onnx

and the logits' SQNR against FP32 on held-out inputs (never calibration
ones) in ONNX Runtime. "raw" is the method's own ranges (check-ranges=false),
"checked" the default.

usage: bench/accuracy/calibration_methods.py [build-dir] [models...]
"""
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
from common import models, ort  # noqa: E402

build = Path(sys.argv[1]) if len(sys.argv) > 1 else here.parent.parent / "build"
qdq_opt = build / "bin" / "qdq-opt"
MODELS = sys.argv[2:] or models.SMALL_CNNS
HISTOGRAM_METHODS = ["percentile", "entropy", "mse"]


def main():
    work = Path(tempfile.mkdtemp(prefix="qdq-calibration-methods-"))
    print(f"{'model':<16} {'method':<12} {'raw dB':>7} {'checked dB':>10} "
          f"{'seconds':>8}")
    for name in MODELS:
        model = models.small_cnn(name, work, digits_calib=64)
        calib = work / f"{name}-calib.npy"
        np.save(calib, model.calibration)
        reference = ort.outputs(model.onnx, model.evaluation)

        def quantize(method, check):
            out = work / f"{name}-{method}-{check}.onnx"
            start = time.time()
            subprocess.run(
                [str(qdq_opt), str(model.onnx),
                 f"--insert-qdq={model.case}",
                 f"--calibrate=data={calib} method={method} "
                 f"check-ranges={'true' if check else 'false'}",
                 "-o", str(out)], check=True, capture_output=True)
            seconds = time.time() - start
            sqnr = ort.sqnr_db(reference, ort.outputs(out, model.evaluation))
            return sqnr, seconds

        for method in ["max"] + HISTOGRAM_METHODS + ["auto"]:
            raw = ""
            if method in HISTOGRAM_METHODS:
                raw = f"{quantize(method, False)[0]:.2f}"
            sqnr, seconds = quantize(method, True)
            print(f"{name:<16} {method:<12} {raw:>7} {sqnr:>10.2f} "
                  f"{seconds:>8.1f}")


if __name__ == "__main__":
    main()
