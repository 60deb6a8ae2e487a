#!/usr/bin/env python3
"""Automatic precision on real data: the size/accuracy curve of
--qdq-auto-precision on the digits CNN (bench/common/models.py), against
uniform formats.

The CNN is trained on 70% of scikit-learn's digits. Calibration takes the
first 256 training images, the precision search the next 256 (validation);
the figures that count are on the 540 held-out test images, run in ONNX
Runtime (an independent runtime, graph rewrites on as deployed):

    qdq-opt digits.onnx --insert-qdq=resnet-v1 --calibrate=calib.npy
        --qdq-auto-precision="target-sqnr=T data=val.npy
            weight-formats=int4,int8 activation-formats=int8,int16,float"

Cost: bits per multiply-accumulate (each Q/DQ pair's bits times the MACs of
the layers it feeds, over those MACs; float counts 32).

The baseline at each target: everything int8, then the layers whose own
error `quant_qdq.compare` ranks worst on the validation images left in
float (a QuantizationSpec entry each), one more at a time, until the
validation SQNR meets the target.

usage: bench/accuracy/auto_precision.py [build-dir] [--check]

--check fails unless, at every target, the held-out SQNR is within 1.5 dB
of the target or above it, and auto precision costs no more bits per MAC
than the baseline.
"""
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
from common import models, ort  # noqa: E402

arguments = [a for a in sys.argv[1:] if a != "--check"]
check = "--check" in sys.argv[1:]
build = Path(arguments[0]) if arguments else here.parent.parent / "build"
qdq_opt = build / "bin" / "qdq-opt"

TARGETS = [20, 25, 30, 35, 40]
WEIGHTS = "int4,int8"
ACTIVATIONS = "int8,int16,float"


def held_out(path, model, reference):
    got = ort.outputs(path, model.evaluation)
    return (ort.top1_percent(got, model.labels),
            ort.sqnr_db(reference, got))


def quantize(model, work, out, option):
    start = time.time()
    subprocess.run([str(qdq_opt), str(model.onnx), "--insert-qdq=resnet-v1",
                    f"--calibrate={work / 'calib.npy'}", option, "-o",
                    str(out)], check=True, capture_output=True)
    return time.time() - start


def sites(report):
    """(layers, MACs) of each Q/DQ pair an auto-precision report lists."""
    rows = []
    for line in report.splitlines()[2:]:
        tensor, kind, layers, macs, fmt, alone = line.split(" ")
        rows.append((set(layers.split(",")), int(macs)))
    return rows


def fallback_bits(rows, floating):
    """Bits per MAC with the pairs of the `floating` layers in float, the
    rest int8."""
    total = sum(max(m, 1) for _, m in rows)
    return sum((32 if layers <= floating else 8) * max(m, 1)
               for layers, m in rows) / total


def fallback_baseline(model, work, target, ranking, rows, val_reference,
                      validation):
    """The int8 model with the fewest worst-ranked layers in float that
    meets `target` dB on the validation images."""
    for k in range(len(ranking) + 1):
        floating = set(ranking[:k])
        spec = work / f"fallback{k}.json"
        spec.write_text(json.dumps({"layers": [
            {"name": name, "quantize_input": False, "quantize_weight": False}
            for name in sorted(floating)]}))
        out = work / f"fallback{k}.onnx"
        subprocess.run([str(qdq_opt), str(model.onnx), "--insert-qdq=resnet-v1",
                        f"--qdq-spec={spec}",
                        f"--calibrate={work / 'calib.npy'}", "-o", str(out)],
                       check=True, capture_output=True)
        val = ort.sqnr_db(val_reference, ort.outputs(out, validation))
        if val >= target or k == len(ranking):
            return out, k, val, fallback_bits(rows, floating)


def main():
    work = Path(tempfile.mkdtemp(prefix="qdq-auto-precision-"))
    model = models.digits_cnn(work, calib=512)
    np.save(work / "calib.npy", model.calibration[:256])
    np.save(work / "val.npy", model.calibration[256:])
    reference = ort.outputs(model.onnx, model.evaluation)
    fp32 = ort.top1_percent(reference, model.labels)
    print(f"digits CNN: {model.notes[0]}; FP32 top-1 {fp32:.2f}%")
    print(f"{'configuration':<28} {'bits/MAC':>8} {'val dB':>7} "
          f"{'held-out dB':>11} {'top-1':>7} {'seconds':>8}")
    # Uniform formats: every pair int8 (8 bits per MAC), or int4 weights
    # with int8 inputs (6: half the pairs at each).
    for name, insert, bits in [
            ("uniform int8", "--insert-qdq=resnet-v1", 8.0),
            ("uniform int4 weights", "--insert-qdq=resnet-v1 weight-format=int4",
             6.0)]:
        out = work / f"{name.replace(' ', '-')}.onnx"
        subprocess.run([str(qdq_opt), str(model.onnx), insert,
                        f"--calibrate={work / 'calib.npy'}", "-o", str(out)],
                       check=True, capture_output=True)
        top1, sqnr = held_out(out, model, reference)
        print(f"{name:<28} {bits:>8.2f} {'':>7} {sqnr:>11.2f} {top1:>6.2f}%")
    # The compare ranking of the int8 model's layers on the validation
    # images, worst own SQNR first.
    sys.path.insert(0, str(build / "python_packages"))
    import quant_qdq
    validation = [model.calibration[i:i + 1] for i in range(256, 512)]
    val_reference = ort.outputs(model.onnx, validation)
    int8 = work / "uniform-int8.onnx"
    ranking = [row.layer for row in quant_qdq.compare(
        str(int8), str(model.onnx), model.calibration[256:],
        layers=100).worst_layers(100) if row.layer]
    baselines, failures = [], []
    for target in TARGETS:
        out = work / f"auto{target}.onnx"
        report = work / f"auto{target}.txt"
        seconds = quantize(
            model, work, out,
            f"--qdq-auto-precision=target-sqnr={target} "
            f"data={work / 'val.npy'} weight-formats={WEIGHTS} "
            f"activation-formats={ACTIVATIONS} report={report}")
        text = report.read_text()
        bits = float(re.search(r"([0-9.]+) bits per", text).group(1))
        val = float(text.split("chosen: SQNR ")[1].split(" dB")[0])
        runs = int(re.search(r"; ([0-9]+) runs", text).group(1))
        top1, sqnr = held_out(out, model, reference)
        print(f"{f'auto, target {target} dB':<28} {bits:>8.2f} {val:>7.2f} "
              f"{sqnr:>11.2f} {top1:>6.2f}% {seconds:>8.1f}  ({runs} runs)")
        fallback, k, fval, fbits = fallback_baseline(
            model, work, target, ranking, sites(text), val_reference,
            validation)
        ftop1, fsqnr = held_out(fallback, model, reference)
        baselines.append(
            f"{f'int8 + {k} float, {target} dB':<28} {fbits:>8.2f} "
            f"{fval:>7.2f} {fsqnr:>11.2f} {ftop1:>6.2f}%")
        if sqnr < target - 1.5:
            failures.append(f"target {target} dB: held-out {sqnr:.2f} dB")
        if bits > fbits + 1e-9:
            failures.append(f"target {target} dB: {bits:.2f} bits per MAC, "
                            f"the baseline {fbits:.2f}")
    for line in baselines:
        print(line)
    if check:
        if failures:
            sys.exit("auto precision: " + "; ".join(failures))
        print(f"checked: {len(TARGETS)} targets met on held-out data within "
              f"1.5 dB, at no more bits per MAC than the baseline")


if __name__ == "__main__":
    main()
