#!/usr/bin/env python3
"""PTQ accuracy on real data: scikit-learn's handwritten digits.

Trains a small CNN with residual adds, batch norm and max pooling
(bench/common/models.py) in a few seconds with PyTorch, exports it to ONNX,
then for each library case and each calibration method runs

    qdq-opt model.onnx --insert-qdq=<case> --calibrate="data=calib.npy method=<m>"
            -o model.qdq.onnx

and measures top-1 on the held-out split by running both the FP32 model and
the QDQ model in ONNX Runtime (an independent runtime).

usage: bench/accuracy/digits.py [build-dir]
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
from common import models, ort  # noqa: E402

build = Path(sys.argv[1]) if len(sys.argv) > 1 else here.parent.parent / "build"
qdq_opt = build / "bin" / "qdq-opt"


# Every calibration method: TensorRT's four and TFMOT's range estimators.
METHODS = ["max", "percentile", "entropy", "mse", "last-value",
           "moving-average"]


def accuracy(path, model):
    return ort.top1_percent(ort.outputs(path, model.evaluation), model.labels)


def logits_sqnr(path, reference, model):
    """SQNR (dB) of the logits against the FP32 model's: finer than top-1
    on a model this accurate."""
    return ort.sqnr_db(reference, ort.outputs(path, model.evaluation))


def main():
    work = Path(tempfile.mkdtemp(prefix="qdq-digits-"))
    start = time.time()
    model = models.digits_cnn(work)
    train_seconds = time.time() - start
    np.save(work / "calib.npy", model.calibration)
    fp32 = accuracy(model.onnx, model)
    reference = ort.outputs(model.onnx, model.evaluation)
    print(f"digits: {model.notes[0]}; trained and exported in {train_seconds:.1f} s; "
          f"FP32 top-1 {fp32:.2f}% (onnxruntime)")
    print(f"{'case':<10} {'method':<15} {'Q/DQ pairs':>10} {'INT8 top-1':>10} "
          f"{'delta':>7} {'SQNR dB':>8}")
    worst = 0.0
    for case in ["default", "resnet-v1", "resnet-v2"]:
        for method in METHODS:
            out = work / f"{case}-{method}.onnx"
            flag = "--insert-qdq" if case == "default" else f"--insert-qdq={case}"
            subprocess.run([str(qdq_opt), str(model.onnx), flag,
                            f"--calibrate=data={work / 'calib.npy'} method={method}",
                            "-o", str(out)], check=True)
            int8 = accuracy(out, model)
            pairs = sum(n.op_type == "QuantizeLinear" for n in onnx.load(str(out)).graph.node)
            worst = max(worst, fp32 - int8)
            sqnr = logits_sqnr(out, reference, model)
            print(f"{case:<10} {method:<15} {pairs:>10} {int8:>9.2f}% "
                  f"{int8 - fp32:>+7.2f} {sqnr:>8.1f}")
    print(f"largest drop, any case and method: {worst:.2f} points")


if __name__ == "__main__":
    main()
