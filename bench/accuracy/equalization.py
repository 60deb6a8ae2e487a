#!/usr/bin/env python3
"""Cross-layer equalization on held-out inputs: CNNs whose batch-norm
statistics are re-estimated (bench/common/models.py, 64x64, 16 calibration
and 8 held-out images) and the trained digits CNN (256 calibration, 540
held-out digits), with one scale per weight tensor (a spec entry per
weighted layer class), where equalization matters, and per channel:

    qdq-opt model.onnx [--qdq-equalize] --insert-qdq=<case>
        [--qdq-spec=per_tensor.json] [--qdq-bias-correction=calib.npy]
        --calibrate=calib.npy -o q.onnx

The logits' SQNR against FP32 in ONNX Runtime (top-1 for the digits), the
pairs equalized, the worst per-tensor fit of the rescaled weights before
and after (mean channel range over the largest, from --qdq-equalize's
report), and the equalized float model's SQNR against the original (float
rounding only: equalization does not change what it computes). Besides the
CNNs of the other accuracy benches, a MobileNet-v2 in miniature trained on
the digits (models.digits_mobilenet).

usage: bench/accuracy/equalization.py [build-dir] [models...]
"""
import re
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
MODELS = sys.argv[2:] or models.SMALL_CNNS + ["digits_mobilenet"]
CONFIGURATIONS = [("plain", []), ("equalized", ["--qdq-equalize"]),
                  ("equalized + bias corr.", ["--qdq-equalize", "bias"])]


def quantize(model, calib, spec, steps, out):
    args = [str(qdq_opt), str(model.onnx)]
    if "--qdq-equalize" in steps:
        args.append("--qdq-equalize")
    args += [f"--insert-qdq={model.case or ''}".rstrip("="), *spec]
    if "bias" in steps:
        args.append(f"--qdq-bias-correction={calib}")
    args += [f"--calibrate={calib}", "-o", str(out)]
    subprocess.run(args, check=True, capture_output=True)


def worst_fit(report):
    """The lowest before and after figures of the report's fit table, as
    text ("-" when nothing was rescaled)."""
    rows = report.split("1 is best)\n", 1)[1].splitlines()[1:]
    fits = [tuple(float(v) for v in row.rsplit(None, 2)[1:]) for row in rows
            if row.strip()]
    if not fits:
        return "-"
    return "%.2f->%.2f" % (min(f[0] for f in fits), min(f[1] for f in fits))


def main():
    work = Path(tempfile.mkdtemp(prefix="qdq-equalization-"))
    per_tensor = specs.write_per_tensor_weights(work / "per_tensor.json")
    header = (f"{'model':<16} {'pairs':>5} {'fit':>11} {'float dB':>9} "
              f"{'weights':<12}")
    header += "".join(f" {name:>22}" for name, _ in CONFIGURATIONS)
    print(header)
    for name in MODELS:
        model = models.small_cnn(name, work, digits_calib=256)
        calib = work / f"{name}-calib.npy"
        np.save(calib, model.calibration)
        reference = ort.outputs(model.onnx, model.evaluation)
        equalized = work / f"{name}-equalized.onnx"
        report = work / f"{name}-report.txt"
        subprocess.run([str(qdq_opt), str(model.onnx),
                        f"--qdq-equalize=report={report}", "-o",
                        str(equalized)], check=True, capture_output=True)
        text = report.read_text()
        pairs = int(re.search(r"(\d+) pairs", text).group(1))
        fit = worst_fit(text)
        float_db = ort.sqnr_db(reference,
                               ort.outputs(equalized, model.evaluation))
        for scales, spec in [("per-tensor", [f"--qdq-spec={per_tensor}"]),
                             ("per-channel", [])]:
            cells = []
            for label, steps in CONFIGURATIONS:
                out = work / f"{name}-{scales}-{len(cells)}.onnx"
                quantize(model, calib, spec, steps, out)
                got = ort.outputs(out, model.evaluation)
                cell = f"{ort.sqnr_db(reference, got):.2f} dB"
                if model.labels is not None:
                    cell += f" {ort.top1_percent(got, model.labels):.2f}%"
                cells.append(cell)
            print(f"{name:<16} {pairs:>5} {fit:>11} {float_db:>9.1f} "
                  f"{scales:<12}"
                  + "".join(f" {c:>22}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
