#!/usr/bin/env python3
"""Automatic precision on held-out data: the size/accuracy curve of
--qdq-auto-precision against uniform formats and against an int8 + float
fallback baseline, on the trained digits CNN (the default), CNNs whose
batch-norm statistics are re-estimated, a BERT-like encoder and the
trained decoder LM of bench/llm.

Each model's data are split three ways: calibration, the precision
search's validation set, and held-out inputs, where the figures that count
are measured, in ONNX Runtime: with every Q/DQ computed as written (its
graph rewrites off: the model's meaning, "held-out dB") and as ONNX
Runtime runs it by default ("ORT dB"), which is not always the same (its
WeightBiasQuantization rewrite quantizes a float weight whose layer reads a
quantized input, RESULTS.md):

    qdq-opt model.onnx --insert-qdq=<case> --calibrate=calib.npy
        --qdq-auto-precision="target-sqnr=T data=val.npy
            weight-formats=int4,int8,float activation-formats=int8,int16,float"

- digits_cnn: trained on 70% of scikit-learn's digits; 256 calibration and
  256 validation training images, 540 held-out test images; targets 20 to
  40 dB.
- resnet18, mobilenet_v2: random weights, batch-norm statistics
  re-estimated, 64x64 (bench/common/models.py); 16 calibration, 16
  validation and 16 held-out random images.
- bert_like: BERT-base's width, 2 layers, sequence 64, random token ids;
  32 calibration, 64 validation and 64 held-out sequences (its output is
  two logits a sequence).
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

With --peers inc, Intel Neural Compressor's accuracy-aware tuning
(bench/peers/inc_tuning.py: int8 with FP32 fallback until the validation
SQNR meets the target; stopped after 5 minutes) runs at each target
too; its model and ours are
then costed alike, from the ONNX files (common/cost.py).

usage: bench/accuracy/auto_precision.py [build-dir] [--check] [--peers inc]
           [--models digits_cnn,resnet18,mobilenet_v2,bert_like,lm]

--check fails unless, at every target, the held-out SQNR (as written) is
within 1.5 dB of the target or above it, and auto precision costs no more
bits per MAC than the baseline.
"""
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
from common import cost, models, ort  # noqa: E402

import argparse  # noqa: E402

parser = argparse.ArgumentParser(
    description="Automatic precision on held-out data (docstring above)")
parser.add_argument("build", nargs="?",
                    default=str(here.parent.parent / "build"))
parser.add_argument("--check", action="store_true")
parser.add_argument("--models", default="digits_cnn")
parser.add_argument("--peers", default="",
                    help="inc: Intel Neural Compressor's accuracy-aware "
                         "tuning at each target too")
options = parser.parse_args()
build = Path(options.build)
qdq_opt = build / "bin" / "qdq-opt"

DIGITS_TARGETS = [20, 25, 30, 35, 40]
RELATIVE_TARGETS = [-6, -3, 0, 3, 6]
WEIGHTS = "int4,int8,float"
INC_SECONDS = 300
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
        # The float model's outputs, which every score compares with.
        self.val_reference = ort.outputs(model.onnx, batches(validation),
                                         optimize=False)
        self.references = (ort.outputs(model.onnx, held_out, optimize=False),
                            ort.outputs(model.onnx, held_out))


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
    # Its output is two logits a sample: 64 samples make an SQNR that
    # does not swing by dBs from one draw of tokens to the next.
    model = models.bert_like(work, seq=64, layers=2, calib=96, evaluate=64)
    return Setup(model, model.calibration[:32], model.calibration[32:],
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


class Scores:
    """A model's figures on the held-out inputs: SQNR with every Q/DQ
    computed as written (ONNX Runtime's graph rewrites off: the model's
    meaning), SQNR as ONNX Runtime runs it by default (its rewrites on;
    None where its optimizer fails on the model), and top-1 (None without
    labels)."""

    def __init__(self, path, setup):
        exact = ort.outputs(path, setup.held_out, optimize=False)
        self.sqnr = ort.sqnr_db(setup.references[0], exact)
        try:
            deployed = ort.outputs(path, setup.held_out)
            self.ort_sqnr = ort.sqnr_db(setup.references[1], deployed)
        except Exception as error:  # ORT's optimizer refusing the model
            print(f"ONNX Runtime's optimizer fails on {Path(path).name}: "
                  f"{str(error).splitlines()[-1][:160]}", file=sys.stderr)
            deployed, self.ort_sqnr = exact, None
        self.top1 = (ort.top1_percent(deployed, setup.model.labels)
                     if setup.model.labels is not None else None)

    def ort_cell(self, width=8):
        return (f"{self.ort_sqnr:>{width}.2f}" if self.ort_sqnr is not None
                else f"{'fails':>{width}}")

    def cells(self):
        return f"{self.sqnr:>11.2f} {self.ort_cell()} {top1_cell(self.top1)}"


def validation_sqnr(path, setup):
    """`path`'s SQNR on the validation data, every Q/DQ as written."""
    return ort.sqnr_db(setup.val_reference,
                       ort.outputs(path, batches(setup.validation),
                                   optimize=False))


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


def fallback_baseline(setup, work, target, ranking, rows):
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
        val = validation_sqnr(out, setup)
        if val >= target or k == len(ranking):
            return out, k, val, fallback_bits(rows, floating)


def batches(array):
    return [array[i:i + 1] for i in range(len(array))]


def inc_version():
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("neural-compressor")
    except PackageNotFoundError:
        return "(not installed)"


def inc_row(setup, work, target, ours, our_scores):
    """INC's tuning to `target` dB on the validation data (a process of its
    own, bench/peers/inc_tuning.py), beside auto precision's `ours`."""
    out = work / f"inc{target}.onnx"
    try:
        result = subprocess.run(
            [sys.executable, str(here.parent / "peers" / "inc_tuning.py"),
             str(setup.model.onnx), str(work / "calib.npy"),
             str(work / "val.npy"), str(target), str(out)],
            capture_output=True, text=True, timeout=INC_SECONDS,
            cwd=work)  # INC writes its nc_workspace/ in the working folder
    except subprocess.TimeoutExpired:
        result = None
    feeds = {onnx.load(str(setup.model.onnx)).graph.input[0].name:
             setup.validation[:1]}
    ours_bits = cost.bits_per_mac(ours, feeds)
    head = f"{target:<8} {ours_bits:>9.2f} {our_scores.sqnr:>8.2f}"
    if result is None:
        return head + f"  INC: no model within {INC_SECONDS} s"
    if result.returncode != 0:
        return head + "  INC failed: " + (result.stderr.strip().splitlines()
                                          or ["no output"])[-1]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    if not report["met"]:
        return (head + f"  INC: target not met in {report['trials']} trials, "
                f"{report['seconds']:.0f} s")
    scores = Scores(out, setup)
    return (head + f" {cost.bits_per_mac(out, feeds):>9.2f} "
            f"{report['val_db']:>8.2f} {scores.sqnr:>8.2f} "
            f"{scores.ort_cell()} {report['trials']:>6} "
            f"{report['seconds']:>8.1f}")


def measure(name, failures):
    work = Path(tempfile.mkdtemp(prefix=f"qdq-auto-precision-{name}-"))
    setup = SETUPS[name](work)
    model = setup.model
    np.save(work / "calib.npy", setup.calibration)
    np.save(work / "val.npy", setup.validation)
    title = setup.title
    if model.labels is not None:
        fp32 = ort.top1_percent(setup.references[1], model.labels)
        title += f"; FP32 top-1 {fp32:.2f}%"
    print(title)
    print(f"{'configuration':<28} {'bits/MAC':>8} {'val dB':>7} "
          f"{'held-out dB':>11} {'ORT dB':>8} {'top-1':>7} {'seconds':>8}")
    # Uniform formats: every pair int8 (8 bits per MAC), or int4 weights
    # with int8 inputs (6: half the pairs at each).
    int8 = work / "uniform-int8.onnx"
    int8_val = None
    for label, insert, bits, out in [
            ("uniform int8", insert_option(model), 8.0, int8),
            ("uniform int4 weights", insert_option(model, "weight-format=int4"),
             6.0, work / "uniform-int4.onnx")]:
        quantize(setup, work, out, insert=insert)
        scores = Scores(out, setup)
        val = validation_sqnr(out, setup)
        if out == int8:
            int8_val = val
        print(f"{label:<28} {bits:>8.2f} {val:>7.2f} {scores.cells()}")
    targets = setup.targets or [
        t for t in (round(int8_val) + d for d in RELATIVE_TARGETS) if t > 0]
    # The compare ranking of the int8 model's layers on the validation
    # data, worst own SQNR first.
    sys.path.insert(0, str(build / "python_packages"))
    import quant_qdq
    ranking = [row.layer for row in quant_qdq.compare(
        str(int8), str(model.onnx), setup.validation,
        layers=1000).worst_layers(1000) if row.layer]
    baselines, peers = [], []
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
        scores = Scores(out, setup)
        print(f"{f'auto, target {target} dB':<28} {bits:>8.2f} {val:>7.2f} "
              f"{scores.cells()} {seconds:>8.1f}  ({runs} runs)", flush=True)
        if "inc" in options.peers.split(","):
            peers.append(inc_row(setup, work, target, out, scores))
        fallback, k, fval, fbits = fallback_baseline(
            setup, work, target, ranking, sites(text))
        fscores = Scores(fallback, setup)
        baselines.append(
            f"{f'int8 + {k} float, {target} dB':<28} {fbits:>8.2f} "
            f"{fval:>7.2f} {fscores.cells()}")
        if scores.sqnr < target - 1.5:
            failures.append(f"{name}, target {target} dB: held-out "
                            f"{scores.sqnr:.2f} dB")
        if bits > fbits + 1e-9:
            failures.append(f"{name}, target {target} dB: {bits:.2f} bits "
                            f"per MAC, the baseline {fbits:.2f}")
    for line in baselines:
        print(line)
    if peers:
        print(f"\nIntel Neural Compressor {inc_version()} accuracy-aware "
              f"tuning against auto precision; bits per MAC read from each "
              f"ONNX file (common/cost.py)")
        print(f"{'target':<8} {'ours bits':>9} {'ours dB':>8} {'INC bits':>9} "
              f"{'INC val':>8} {'INC dB':>8} {'INC ORT':>8} {'trials':>6} "
              f"{'seconds':>8}")
        for line in peers:
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
