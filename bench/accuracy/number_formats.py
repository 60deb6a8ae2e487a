#!/usr/bin/env python3
"""TensorQuant's number formats on real data (issue 16): how the digits CNN
(bench/common/models.py, trained in a few seconds on scikit-learn's
handwritten digits) scores when its weights or layer outputs are rounded
onto fixed point, powers of two, ternary or binary16, post training.

For each configuration:

    qdq-opt digits_cnn.onnx --insert-number-formats="weights=... outputs=..."
    qdq-run model.mlir --input=eval.npy --output=logits.npy

on the 540 held-out digits in one batch. The FP32 row is qdq-run on the
imported model, checked against ONNX Runtime on the same images. SQNR is of
the logits against FP32's. TensorQuant trains binary and ternary networks;
rounded after training, as here, they lose most of their accuracy, which
the table shows rather than hides.

usage: bench/accuracy/number_formats.py [build-dir] [--check-recorded]

With --check-recorded, the figures must agree with RESULTS.md's table
(top-1 within two of the 540 images, SQNR within 1 dB).
"""
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
from common import reproducible  # noqa: E402  (before torch)
from common import models, ort  # noqa: E402
from common.recorded import (ACCURACY_TOLERANCES,  # noqa: E402
                             accuracy_arguments, check_recorded,
                             exit_on_differences)

args = accuracy_arguments(__doc__, here.parent.parent / "build")
qdq_opt = args.build / "bin" / "qdq-opt"
qdq_run = args.build / "bin" / "qdq-run"

# First and last layers stay in float, as binary and ternary networks keep
# them (TensorQuant's first-match map: "none" entries come first).
ENDS_IN_FLOAT = {"/stem/": "none", "/head/head.5/": "none", "": "{}"}

# (name, weights option, outputs option); a dict is written as a map file.
CONFIGS = [
    ("weights fixed <8,6> nearest", "nearest,8,6", None),
    ("weights fixed <6,4> nearest", "nearest,6,4", None),
    ("weights fixed <6,4> zero", "zero,6,4", None),
    ("weights fixed <6,4> down", "down,6,4", None),
    ("weights fixed <6,4> stochastic", "stochastic,6,4,1", None),
    ("weights fixed <4,2> nearest", "nearest,4,2", None),
    ("outputs fixed <16,8> nearest", None, "nearest,16,8"),
    ("outputs fixed <8,4> nearest", None, "nearest,8,4"),
    ("outputs fixed <8,4> stochastic", None, "stochastic,8,4,1"),
    ("weights <8,6> + outputs <16,8>", "nearest,8,6", "nearest,16,8"),
    ("weights logarithmic", "logarithmic", None),
    ("weights fp16 + outputs fp16", "fp16", "fp16"),
    ("weights sparse 0.05", "sparse,0.05", None),
    ("weights ternary 0.1, first and last layers in float",
     "ternary,0.1", None),
    ("weights binary 0.1, first and last layers in float",
     "binary,0.1", None),
]


def option(value, work, tag):
    """A format name, or a map file holding ENDS_IN_FLOAT's layout around
    it for binary and ternary formats."""
    if value.startswith(("ternary", "binary")):
        path = work / f"{tag}.json"
        path.write_text(json.dumps(
            {k: v.format(value) for k, v in ENDS_IN_FLOAT.items()}))
        return str(path)
    return value


def run(mlir, images, out):
    start = time.time()
    subprocess.run([str(qdq_run), str(mlir), f"--input={images}",
                    f"--output={out}"], check=True)
    return np.load(out), time.time() - start


def main():
    reproducible.single_threaded_torch()
    work = Path(tempfile.mkdtemp(prefix="qdq-number-formats-"))
    start = time.time()
    model = models.digits_cnn(work)
    images = work / "eval.npy"
    np.save(images, np.concatenate(model.evaluation))
    print(f"{model.name}: {model.notes[0]}; trained and exported in "
          f"{time.time() - start:.1f} s")

    imported = work / "fp32.mlir"
    subprocess.run([str(qdq_opt), str(model.onnx), "-o", str(imported)],
                   check=True)
    fp32, seconds = run(imported, images, work / "fp32.npy")
    reference = np.concatenate(ort.outputs(model.onnx, model.evaluation,
                                           optimize=False))
    print(f"qdq-run FP32 vs ONNX Runtime: max |diff| "
          f"{np.abs(fp32 - reference).max():.1e}")
    print(f"{'configuration':<52} {'top-1':>7} {'delta':>6} {'SQNR dB':>8} "
          f"{'run s':>6}")
    top1 = ort.top1_percent(list(fp32), model.labels)
    print(f"{'FP32':<52} {top1:6.2f}% {'':>6} {'':>8} {seconds:6.2f}")
    measured = {}
    for i, (name, weights, outputs) in enumerate(CONFIGS):
        options = []
        if weights:
            options.append(f"weights={option(weights, work, f'w{i}')}")
        if outputs:
            options.append(f"outputs={option(outputs, work, f'o{i}')}")
        mlir = work / f"c{i}.mlir"
        subprocess.run([str(qdq_opt), str(imported),
                        "--insert-number-formats=" + " ".join(options),
                        "-o", str(mlir)], check=True)
        logits, seconds = run(mlir, images, work / f"c{i}.npy")
        score = ort.top1_percent(list(logits), model.labels)
        sqnr = ort.sqnr_db([fp32], [logits])
        print(f"{name:<52} {score:6.2f}% {score - top1:+6.2f} {sqnr:8.1f} "
              f"{seconds:6.2f}")
        measured[name] = {"top-1": score, "SQNR dB": sqnr}
    if args.check_recorded:
        exit_on_differences(check_recorded(
            here / "RESULTS.md", "TensorQuant's number formats", None,
            measured, ACCURACY_TOLERANCES))


if __name__ == "__main__":
    main()
