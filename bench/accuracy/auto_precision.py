#!/usr/bin/env python3
"""Automatic precision on held-out data: the size/accuracy curve of
--qdq-auto-precision against uniform formats and against an int8 + float
fallback baseline, on the trained digits CNN (the default), CNNs whose
batch-norm statistics are re-estimated, a BERT-like encoder and the
trained decoder LM of bench/llm.

Each model's data are split three ways: calibration, the precision
search's validation set, and held-out inputs, where the figures that count
are measured, in ONNX Runtime (graph rewrites on, as deployed):

    qdq-opt model.onnx --insert-qdq=<case> --calibrate=calib.npy
        --qdq-auto-precision="target-sqnr=T data=val.npy
            weight-formats=int4,int8 activation-formats=int8,int16,float"

- digits_cnn: trained on 70% of scikit-learn's digits; 256 calibration and
  256 validation training images, 540 held-out test images; targets 20 to
  40 dB.
- resnet18, mobilenet_v2: random weights, batch-norm statistics
  re-estimated, 64x64 (bench/common/models.py); 16 calibration, 16
  validation and 16 held-out random images.
- bert_like: BERT-base's width, 2 layers, sequence 64, random token ids;
  16 / 16 / 16.
- lm: bench/llm's byte-level decoder trained on the standard library's
  docstrings (bench/llm/train.py, cached; ~5 minutes the first time); 32
  calibration and 32 validation rows of the calibration text, 16 held-out
  rows, 128 tokens each; the SQNR is over all logits.
For the last four the targets are the validation SQNR of uniform int8
rounded, -6, -3, +0, +3 and +6 dB (those above 0).

Cost: bits per multiply-accumulate (each Q/DQ pair's bits times the MACs of
the layers it feeds, over those MACs; float counts 32).

The baseline at each target: everything int8, then the layers whose own
error `quant_qdq.compare` ranks worst on the validation data left in float
(a QuantizationSpec entry each), one more at a time, until the validation
SQNR meets the target.

usage: bench/accuracy/auto_precision.py [build-dir] [--check]
           [--models digits_cnn,resnet18,mobilenet_v2,bert_like,lm]

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

import argparse  # noqa: E402

parser = argparse.ArgumentParser(
    description="Automatic precision on held-out data (docstring above)")
parser.add_argument("build", nargs="?",
                    default=str(here.parent.parent / "build"))
parser.add_argument("--check", action="store_true")
parser.add_argument("--models", default="digits_cnn")
options = parser.parse_args()
build = Path(options.build)
qdq_opt = build / "bin" / "qdq-opt"

DIGITS_TARGETS = [20, 25, 30, 35, 40]
RELATIVE_TARGETS = [-6, -3, 0, 3, 6]
WEIGHTS = "int4,int8"
ACTIVATIONS = "int8,int16,float"


class Setup:
    """A model with its three data sets (calibration and validation
    arrays, held-out batch-1 inputs) and its targets (None: relative to
    uniform int8's validation SQNR)."""

    def __init__(self, model, calibration, validation, held_out,
                 targets=None, title=None):
        self.model, self.calibration = model, calibration
        self.validation, self.held_out = validation, held_out
        self.targets, self.title = targets, title or model.name


def digits_setup(work):
    model = models.digits_cnn(work, calib=512)
    return Setup(model, model.calibration[:256], model.calibration[256:],
                 model.evaluation, DIGITS_TARGETS,
                 title=f"digits CNN: {model.notes[0]}")


def cnn_setup(name):
    def make(work):
        model = models.torchvision_cnn(name, work, size=64, calib=32,
                                       evaluate=16)
        return Setup(model, model.calibration[:16], model.calibration[16:],
                     model.evaluation, title=f"{name}: {model.notes[0]}")
    return make


def bert_setup(work):
    model = models.bert_like(work, seq=64, layers=2, calib=32, evaluate=16)
    return Setup(model, model.calibration[:16], model.calibration[16:],
                 model.evaluation, title=f"bert_like: {model.notes[0]}")


def lm_setup(work):
    from llm import train
    cache = train.default_out()
    subprocess.run([sys.executable, str(here.parent / "llm" / "train.py"),
                    "--out", str(cache)], check=True, capture_output=True)
    calibration = np.load(cache / "calibration.npy")
    evaluation = np.load(cache / "evaluation.npy")
    model = models.BenchModel(
        name="lm", onnx=cache / "model.onnx", case="transformer",
        calibration=calibration,
        evaluation=[evaluation[i:i + 1] for i in range(16)])
    return Setup(model, calibration[:32], calibration[32:64],
                 model.evaluation,
                 title=f"lm: bench/llm's trained decoder, "
                       f"{calibration.shape[1]} tokens a row")


SETUPS = {"digits_cnn": digits_setup, "resnet18": cnn_setup("resnet18"),
          "mobilenet_v2": cnn_setup("mobilenet_v2"), "bert_like": bert_setup,
          "lm": lm_setup}


def insert_option(model, formats=""):
    """insert-qdq with the model's case and `formats` (its options)."""
    value = " ".join(v for v in (model.case or "", formats) if v)
    return f"--insert-qdq={value}" if value else "--insert-qdq"


def scored(path, setup, reference):
    """(top-1 % or None, SQNR dB) of `path` on the held-out inputs."""
    got = ort.outputs(path, setup.held_out)
    top1 = (ort.top1_percent(got, setup.model.labels)
            if setup.model.labels is not None else None)
    return top1, ort.sqnr_db(reference, got)


def top1_cell(top1):
    return f"{top1:>6.2f}%" if top1 is not None else f"{'':>7}"


def quantize(setup, work, out, *extra, insert=None):
    """qdq-opt: insertion (the model's case unless `insert`), max
    calibration, then `extra`; returns the seconds it took."""
    start = time.time()
    subprocess.run([str(qdq_opt), str(setup.model.onnx),
                    insert or insert_option(setup.model),
                    f"--calibrate={work / 'calib.npy'}", *extra,
                    "-o", str(out)], check=True, capture_output=True)
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


def fallback_baseline(setup, work, target, ranking, rows, val_reference):
    """The int8 model with the fewest worst-ranked layers in float that
    meets `target` dB on the validation data."""
    for k in range(len(ranking) + 1):
        floating = set(ranking[:k])
        spec = work / f"fallback{k}.json"
        spec.write_text(json.dumps({"layers": [
            {"name": name, "quantize_input": False, "quantize_weight": False}
            for name in sorted(floating)]}))
        out = work / f"fallback{k}.onnx"
        quantize(setup, work, out, f"--qdq-spec={spec}")
        val = ort.sqnr_db(val_reference,
                          ort.outputs(out, batches(setup.validation)))
        if val >= target or k == len(ranking):
            return out, k, val, fallback_bits(rows, floating)


def batches(array):
    return [array[i:i + 1] for i in range(len(array))]


def measure(name, failures):
    work = Path(tempfile.mkdtemp(prefix=f"qdq-auto-precision-{name}-"))
    setup = SETUPS[name](work)
    model = setup.model
    np.save(work / "calib.npy", setup.calibration)
    np.save(work / "val.npy", setup.validation)
    reference = ort.outputs(model.onnx, setup.held_out)
    val_reference = ort.outputs(model.onnx, batches(setup.validation))
    title = setup.title
    if model.labels is not None:
        title += f"; FP32 top-1 {ort.top1_percent(reference, model.labels):.2f}%"
    print(title)
    print(f"{'configuration':<28} {'bits/MAC':>8} {'val dB':>7} "
          f"{'held-out dB':>11} {'top-1':>7} {'seconds':>8}")
    # Uniform formats: every pair int8 (8 bits per MAC), or int4 weights
    # with int8 inputs (6: half the pairs at each).
    int8 = work / "uniform-int8.onnx"
    int8_val = None
    for label, insert, bits, out in [
            ("uniform int8", insert_option(model), 8.0, int8),
            ("uniform int4 weights", insert_option(model, "weight-format=int4"),
             6.0, work / "uniform-int4.onnx")]:
        quantize(setup, work, out, insert=insert)
        top1, sqnr = scored(out, setup, reference)
        val = ort.sqnr_db(val_reference,
                          ort.outputs(out, batches(setup.validation)))
        if out == int8:
            int8_val = val
        print(f"{label:<28} {bits:>8.2f} {val:>7.2f} {sqnr:>11.2f} "
              f"{top1_cell(top1)}")
    targets = setup.targets or [
        t for t in (round(int8_val) + d for d in RELATIVE_TARGETS) if t > 0]
    # The compare ranking of the int8 model's layers on the validation
    # data, worst own SQNR first.
    sys.path.insert(0, str(build / "python_packages"))
    import quant_qdq
    ranking = [row.layer for row in quant_qdq.compare(
        str(int8), str(model.onnx), setup.validation,
        layers=1000).worst_layers(1000) if row.layer]
    baselines = []
    for target in targets:
        out = work / f"auto{target}.onnx"
        report = work / f"auto{target}.txt"
        seconds = quantize(
            setup, work, out,
            f"--qdq-auto-precision=target-sqnr={target} "
            f"data={work / 'val.npy'} weight-formats={WEIGHTS} "
            f"activation-formats={ACTIVATIONS} report={report}")
        text = report.read_text()
        bits = float(re.search(r"([0-9.]+) bits per", text).group(1))
        val = float(text.split("chosen: SQNR ")[1].split(" dB")[0])
        runs = int(re.search(r"; ([0-9]+) runs", text).group(1))
        top1, sqnr = scored(out, setup, reference)
        print(f"{f'auto, target {target} dB':<28} {bits:>8.2f} {val:>7.2f} "
              f"{sqnr:>11.2f} {top1_cell(top1)} {seconds:>8.1f}  "
              f"({runs} runs)", flush=True)
        fallback, k, fval, fbits = fallback_baseline(
            setup, work, target, ranking, sites(text), val_reference)
        ftop1, fsqnr = scored(fallback, setup, reference)
        baselines.append(
            f"{f'int8 + {k} float, {target} dB':<28} {fbits:>8.2f} "
            f"{fval:>7.2f} {fsqnr:>11.2f} {top1_cell(ftop1)}")
        if sqnr < target - 1.5:
            failures.append(f"{name}, target {target} dB: held-out "
                            f"{sqnr:.2f} dB")
        if bits > fbits + 1e-9:
            failures.append(f"{name}, target {target} dB: {bits:.2f} bits "
                            f"per MAC, the baseline {fbits:.2f}")
    for line in baselines:
        print(line)
    print(flush=True)
    return len(targets)


def main():
    failures, count = [], 0
    for name in options.models.split(","):
        if name not in SETUPS:
            sys.exit(f"unknown model {name!r}: one of {', '.join(SETUPS)}")
        count += measure(name, failures)
    if options.check:
        if failures:
            sys.exit("auto precision: " + "; ".join(failures))
        print(f"checked: {count} targets met on held-out data within "
              f"1.5 dB, at no more bits per MAC than the baseline")


if __name__ == "__main__":
    main()
