#!/usr/bin/env python3
"""What each quantization method does to bench/llm's trained byte-level
language model (lm.py, train.py), quant-qdq and its peers side by side on
the same files, calibration text and runtime.

Scores, in ONNX Runtime with its graph rewrites off (Q/DQ computed as
written): perplexity on held-out text and its change against FP32, the
percentage of positions whose top-1 next byte agrees with FP32's, and the
SQNR of the logits against FP32's. Also the quantization's wall time and
peak memory: each quantizer runs as a process of its own, started from a
small launcher that reads the process's peak RSS (ru_maxrss) from
os.wait4, as bench/peers/run.py does.

Methods (C = the cache's calibration.npy, 64 x 128 bytes):

- W8A8 (prefill model, all 256 x 128 held-out bytes):
  qdq-opt model.onnx --insert-qdq=transformer [--qdq-smooth="data=C
  alpha=0.5|auto"] [--qdq-gptq=data=C] --calibrate="data=C method=max|mse";
  ONNX Runtime's quantize_static (QDQ, int8 symmetric, per-channel
  weights, MinMax; every op type it quantizes by default, and MatMul
  alone); Model Optimizer's int8 ONNX quantize (max).
- int4 weight-only in blocks of 32 and 128:
  qdq-opt model.onnx --insert-qdq="weight-format=int4
  activation-format=none weight-block-size=B" [--qdq-awq=data=C]
  [--qdq-gptq="data=C [act-order=true]"]; ONNX Runtime's
  MatMulNBitsQuantizer (symmetric, MatMulNBits: its default config, RTN;
  HQQ; and the RTN and GPTQ configs of its bundled Neural Compressor
  code); Model Optimizer's int4.quantize (rtn_dq; awq_lite with
  awqlite_fuse_nodes=False, and with its defaults, which fail, at 128
  only).
- int8 weight-only per output channel: qdq-opt --insert-qdq=
  "weight-format=int8 activation-format=none" [--qdq-gptq=data=C].
- The key/value cache, on the decode step (lm.export_cached, the same
  weights) evaluated token by token from an empty cache (lm.decode_logits)
  on 32 of the held-out sequences: the cache alone in int8 and FP8
  (--insert-qdq="mode=partial spec=<empty spec> kv-cache=int8|fp8"), W8A8
  without and with the int8 cache. Calibration: the 64 calibration
  sequences run through the FP32 decode step in chunks of 32 new tokens
  from an empty cache, an .npz (input_ids and every past_*) per chunk,
  i.e. past lengths 0, 32, 64 and 96, in one folder.

Every tool reads a copy of the cache's model.onnx in the work folder
(Model Optimizer's int8 path rewrites the file it is given, so it gets one
of its own). A tool that fails gets a row with its error. Everything runs
on the CPU; the order and the data are fixed, so a second run gives the
same figures but the times.

usage: bench/llm/run.py [--build build] [--work DIR] [--markdown table.md]
                        [--only SUBSTRING,...]

(--only: the rows whose "tool method" contains one of the substrings,
e.g. --only awq,kv; the FP32 rows always run.)
"""
import argparse
import hashlib
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
from common import ort as bench_ort  # noqa: E402
from common import processes  # noqa: E402
from common.table import MarkdownTable  # noqa: E402
from llm import lm  # noqa: E402

DECODE_SEQUENCES = 32   # held-out sequences decoded token by token
CALIBRATION_CHUNK = 32  # new tokens per decode-step calibration file
BLOCKS = (32, 128)

def last_exception_line(lines):
    """The line that says why a tool failed: a Python traceback ends with
    its exception; qdq-opt says "error:"."""
    telling = [line.strip() for line in lines if re.match(
        r"^\s*[\w.]*(Error|Exception)\b|.*\berror:", line)]
    return (telling[-1] if telling else lines[-1].strip() if lines
            else "no output")


def measured(command, timeout=1800):
    """Runs `command` in a process of its own (common/processes.py): exit
    status, wall seconds, peak RSS MiB, why it failed."""
    return processes.measured(command, timeout, telling=last_exception_line,
                              limit=400)


# --- the quantizers -----------------------------------------------------

def ours(build, model, out, *options):
    return [build / "bin" / "qdq-opt", model, *options, "-o", out]


def int4(block):
    return ("--insert-qdq=weight-format=int4 activation-format=none "
            f"weight-block-size={block}")


def peer(name, *arguments):
    """This script in --worker mode: a peer's quantization in a process of
    its own."""
    return [sys.executable, Path(__file__).resolve(), "--worker", name,
            *arguments]


def methods(build, model, decode, calib, decode_calib, empty_spec):
    """(section, tool, method, which model it quantizes, command) per row,
    in the order they run."""
    C = calib
    rows = [
        ("W8A8", "quant-qdq", "max", "prefill",
         ["--insert-qdq=transformer", f"--calibrate=data={C} method=max"]),
        ("W8A8", "quant-qdq", "mse", "prefill",
         ["--insert-qdq=transformer", f"--calibrate=data={C} method=mse"]),
        ("W8A8", "quant-qdq", "SmoothQuant alpha 0.5, max", "prefill",
         ["--insert-qdq=transformer", f"--qdq-smooth=data={C} alpha=0.5",
          f"--calibrate=data={C}"]),
        ("W8A8", "quant-qdq", "SmoothQuant alpha auto, max", "prefill",
         ["--insert-qdq=transformer", f"--qdq-smooth=data={C} alpha=auto",
          f"--calibrate=data={C}"]),
        ("W8A8", "quant-qdq", "GPTQ int8 weights, max", "prefill",
         ["--insert-qdq=transformer", f"--qdq-gptq=data={C}",
          f"--calibrate=data={C}"]),
        ("W8A8", "ORT-Q", "quantize_static MinMax", "prefill",
         ("ort-static", "default")),
        ("W8A8", "ORT-Q", "quantize_static MinMax, MatMul only", "prefill",
         ("ort-static", "matmul")),
        ("W8A8", "ModelOpt", "int8 max", "prefill", ("modelopt-int8",)),
    ]
    for block in BLOCKS:
        section = f"int4 weight-only, blocks of {block}"
        rows += [
            (section, "quant-qdq", "RTN", "prefill", [int4(block)]),
            (section, "quant-qdq", "AWQ", "prefill",
             [int4(block), f"--qdq-awq=data={C}"]),
            (section, "quant-qdq", "GPTQ", "prefill",
             [int4(block), f"--qdq-gptq=data={C}"]),
            (section, "quant-qdq", "GPTQ act-order", "prefill",
             [int4(block), f"--qdq-gptq=data={C} act-order=true"]),
            (section, "quant-qdq", "AWQ then GPTQ", "prefill",
             [int4(block), f"--qdq-awq=data={C}", f"--qdq-gptq=data={C}"]),
            (section, "ORT MatMulNBits", "default (RTN)", "prefill",
             ("ort-nbits", "default", block)),
            (section, "ORT MatMulNBits", "HQQ", "prefill",
             ("ort-nbits", "hqq", block)),
            (section, "ORT MatMulNBits", "RTN (Neural Compressor's)",
             "prefill", ("ort-nbits", "rtn", block)),
            (section, "ORT MatMulNBits", "GPTQ (Neural Compressor's)",
             "prefill", ("ort-nbits", "gptq", block)),
            (section, "ModelOpt", "rtn_dq", "prefill",
             ("modelopt-int4", "rtn_dq", block, "fuse")),
        ]
        # awq_lite's default fails after its search (see RESULTS.md), the
        # same way at any block size: tried once, at TensorRT's 128.
        if block == 128:
            rows.append((section, "ModelOpt", "awq_lite", "prefill",
                         ("modelopt-int4", "awq_lite", block, "fuse")))
        rows.append((section, "ModelOpt", "awq_lite, awqlite_fuse_nodes "
                     "False", "prefill",
                     ("modelopt-int4", "awq_lite", block, "nofuse")))
    rows += [
        ("int8 weight-only, per channel", "quant-qdq", "RTN", "prefill",
         ["--insert-qdq=weight-format=int8 activation-format=none"]),
        ("int8 weight-only, per channel", "quant-qdq", "GPTQ", "prefill",
         ["--insert-qdq=weight-format=int8 activation-format=none",
          f"--qdq-gptq=data={C}"]),
    ]
    D = decode_calib
    kv = "decode step, token by token"
    rows += [
        (kv, "quant-qdq", "KV cache int8 only", "decode",
         [f"--insert-qdq=mode=partial spec={empty_spec} kv-cache=int8",
          f"--calibrate={D}"]),
        (kv, "quant-qdq", "KV cache FP8 only", "decode",
         [f"--insert-qdq=mode=partial spec={empty_spec} kv-cache=fp8",
          f"--calibrate={D}"]),
        (kv, "quant-qdq", "W8A8, max", "decode",
         ["--insert-qdq=transformer", f"--calibrate={D}"]),
        (kv, "quant-qdq", "W8A8 + KV cache int8, max", "decode",
         ["--insert-qdq=cases=transformer kv-cache=int8",
          f"--calibrate={D}"]),
    ]
    commands = []
    for section, tool, method, kind, how in rows:
        source = decode if kind == "decode" else model
        commands.append((section, tool, method, kind, source, how))
    return commands


# --- the peers, each in its own process (--worker) ----------------------

def calibration_feeds(calib):
    """The calibration data as {input name: samples}: calibration.npy's
    sequences as `input_ids`, or an .npz's arrays named after the inputs
    (a model of several, as hf.py's Hugging Face decoders)."""
    if isinstance(calib, (dict, np.lib.npyio.NpzFile)):
        return dict(calib)
    return {"input_ids": calib}


def calibration_reader(calib):
    """The peers' calibration feed: one sequence (of every input) a
    batch."""
    return bench_ort.calibration_reader_feeds(calibration_feeds(calib))


def ort_static(model, calib, out, op_types):
    """quantize_static, as bench/peers/quantize_with_peer.py calls it:
    QDQ, int8 symmetric activations and weights, per-channel weights,
    MinMax; every op type it quantizes by default, or MatMul alone."""
    from onnxruntime.quantization import (CalibrationMethod, QuantFormat,
                                          QuantType, quantize_static)
    quantize_static(
        model, out, calibration_reader(calib), quant_format=QuantFormat.QDQ,
        activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
        per_channel=True, calibrate_method=CalibrationMethod.MinMax,
        op_types_to_quantize=["MatMul"] if op_types == "matmul" else None,
        extra_options={"ActivationSymmetric": True, "WeightSymmetric": True,
                       "CalibTensorRangeSymmetric": True})


def ort_matmul_nbits(model, calib, out, algorithm, block):
    """MatMulNBitsQuantizer, 4 bits, symmetric, blocks of `block`, every
    MatMul with a constant weight replaced by a MatMulNBits (its default
    QOperator format): `algorithm` default (its round-to-nearest), hqq, or
    the rtn and gptq of its bundled Neural Compressor code."""
    from onnxruntime.quantization import matmul_nbits_quantizer as nbits
    block = int(block)
    config = {
        "default": lambda: nbits.DefaultWeightOnlyQuantConfig(
            block_size=block, is_symmetric=True),
        "hqq": lambda: nbits.HQQWeightOnlyQuantConfig(block_size=block),
        "rtn": lambda: nbits.RTNWeightOnlyQuantConfig(),
        "gptq": lambda: nbits.GPTQWeightOnlyQuantConfig(
            calibration_data_reader=calibration_reader(calib)),
    }[algorithm]()
    quantizer = nbits.MatMulNBitsQuantizer(model, block_size=block,
                                           is_symmetric=True,
                                           algo_config=config)
    quantizer.process()
    quantizer.model.save_model_to_file(out)


def modelopt_int8(model, calib, out):
    """Model Optimizer's int8 ONNX path, as bench/peers calls it (max,
    calibration on the CPU, float parts kept in fp32). It rewrites the
    file it is given (0.47 saves it back with the shapes it inferred), so
    it gets a copy of its own."""
    import shutil
    from modelopt.onnx.quantization import quantize
    model = shutil.copy(model, out + ".input.onnx")
    quantize(model, quantize_mode="int8",
             calibration_data=calibration_feeds(calib),
             calibration_method="max", calibration_eps=["cpu"],
             high_precision_dtype="fp32", output_path=out,
             log_level="WARNING")


def modelopt_int4(model, calib, out, method, block, fuse):
    """Model Optimizer's int4.quantize, as bench/peers/int4.py calls it;
    `fuse` "nofuse" passes awqlite_fuse_nodes=False (awq_lite's pre-quant
    scales as Mul nodes rather than folded into the parent, the RMSNorm
    weight here). It writes block_size DequantizeLinear but keeps opset 17,
    which ONNX Runtime rejects; raising the number alone, as bench/peers/
    int4.py does, leaves ReduceMean's axes an attribute, which opset 18
    moved to an input: ONNX's version converter takes it to 21, the first
    opset with block_size."""
    import onnx
    import onnx.version_converter
    from modelopt.onnx.quantization import int4
    extra = {"awqlite_fuse_nodes": False} if fuse == "nofuse" else {}
    quantized = int4.quantize(
        model, calibration_method=method,
        calibration_data_reader=calibration_reader(calib),
        calibration_eps=["cpu"], block_size=int(block), nodes_to_exclude=[],
        use_external_data_format=False, log_level="ERROR", **extra)
    opset = next(o.version for o in quantized.opset_import
                 if o.domain in ("", "ai.onnx"))
    note = ""
    if opset < 21:
        quantized = onnx.version_converter.convert_version(quantized, 21)
        note = f"written at opset {opset}, converted to 21 to run"
    onnx.save(quantized, out)
    return note


WORKERS = {"ort-static": ort_static, "ort-nbits": ort_matmul_nbits,
           "modelopt-int8": modelopt_int8, "modelopt-int4": modelopt_int4}


def worker(name, model, calib, out, *arguments):
    """Runs one peer, timing its call alone (imports apart), and leaves
    {"seconds", "note"} in OUT.json."""
    calib = np.load(calib)
    start = time.perf_counter()
    note = WORKERS[name](model, calib, out, *arguments)
    seconds = time.perf_counter() - start
    Path(out + ".json").write_text(json.dumps({"seconds": seconds,
                                               "note": note or ""}))


# --- data, the decode step and the scores -------------------------------

def machine():
    """The CPU's model name, its cores, and whether it has AVX-512 VNNI."""
    name = platform.processor() or "unknown CPU"
    try:
        for line in subprocess.run(["lscpu"], capture_output=True,
                                   text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                name = line.split(":", 1)[1].strip()
    except OSError:
        pass
    flags = Path("/proc/cpuinfo").read_text() if Path(
        "/proc/cpuinfo").exists() else ""
    vnni = "AVX-512 VNNI" if "avx512_vnni" in flags else "no AVX-512 VNNI"
    return f"{name}, {os.cpu_count()} cores, {vnni}"


def decode_calibration(decode, calib, folder):
    """The FP32 decode step run over the calibration sequences,
    CALIBRATION_CHUNK new tokens at a time from an empty cache, each
    step's feeds saved as an .npz (input_ids and every past_*) in
    `folder`: past lengths 0, 32, 64, 96."""
    session = bench_ort.session(decode, optimize=False, threads=1)
    inputs = [i.name for i in session.get_inputs()]
    outputs = [o.name for o in session.get_outputs()]
    past = {n: np.zeros((len(calib), i.shape[1], 0, i.shape[3]), np.float32)
            for n, i in zip(inputs[1:], session.get_inputs()[1:])}
    folder.mkdir(exist_ok=True)
    for start in range(0, calib.shape[1], CALIBRATION_CHUNK):
        feeds = {"input_ids": calib[:, start:start + CALIBRATION_CHUNK],
                 **past}
        np.savez(folder / f"past{start:03d}.npz", **feeds)
        present = session.run(outputs[1:], feeds)
        past = {n.replace("present", "past", 1): v
                for n, v in zip(outputs[1:], present)}


def check_our_import(build, decode, folder, work):
    """qdq-run's logits of the FP32 decode step against ONNX Runtime's,
    from an empty cache (past length 0): whether our import takes it."""
    feeds = dict(np.load(folder / "past000.npz"))
    feeds = {k: v[:2] for k, v in feeds.items()}
    np.savez(work / "empty-past.npz", **feeds)
    session = bench_ort.session(decode, optimize=False, threads=1)
    outputs = [work / f"qdq-run.{o.name}.npy" for o in session.get_outputs()]
    subprocess.run([str(build / "bin" / "qdq-run"), str(decode), "--input",
                    str(work / "empty-past.npz")]
                   + [a for o in outputs for a in ("--output", str(o))],
                   check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    reference = session.run(None, feeds)[0]
    return float(np.abs(np.load(outputs[0]) - reference).max() /
                 np.abs(reference).max())


def sqnr_db(reference, candidate):
    reference = reference.astype(np.float64)
    noise = ((reference - candidate) ** 2).sum()
    return float("inf") if noise == 0 else float(
        10 * math.log10((reference ** 2).sum() / noise))


class Scorer:
    """Perplexity, its change, top-1 agreement and logits SQNR against the
    FP32 model of the same kind: the prefill model on every held-out
    sequence, the decode step token by token on DECODE_SEQUENCES of them."""

    def __init__(self, model, decode, evaluation):
        self.tokens = {"prefill": evaluation,
                       "decode": evaluation[::len(evaluation)
                                            // DECODE_SEQUENCES]}
        self.reference = {"prefill": lm.logits(model, evaluation),
                          "decode": lm.decode_logits(
                              decode, self.tokens["decode"])}
        self.fp32 = {k: self.perplexity(k, v)
                     for k, v in self.reference.items()}

    def perplexity(self, kind, logits):
        return math.exp(lm.next_token_nll(logits, self.tokens[kind]))

    def __call__(self, kind, path):
        logits = (lm.logits(path, self.tokens[kind]) if kind == "prefill"
                  else lm.decode_logits(path, self.tokens[kind]))
        perplexity = self.perplexity(kind, logits)
        return (perplexity, 100 * (perplexity / self.fp32[kind] - 1),
                lm.top1_agreement(logits, self.reference[kind]),
                sqnr_db(self.reference[kind], logits))


# --- the run ------------------------------------------------------------

HEADER = ("| section | tool | method | perplexity | change % | top-1 agreement "
          "% | logits SQNR dB | quantize s | of which the call s | peak RSS "
          "MiB | note |")


def prepare(work):
    """What every measurement here reads, in `work`: the trained model
    (train.py: seconds when cached, ~5 min otherwise) and its calibration
    text, copied (the cache's files are train.py's), the held-out text, and
    the decode step exported from the same weights with its calibration
    feeds. Returns (model, calibration, evaluation, decode, decode
    calibration folder)."""
    subprocess.run([sys.executable, str(here / "train.py")], check=True,
                   stdout=subprocess.DEVNULL)
    sys.path.insert(0, str(here))
    import train  # its common.reproducible caps oneDNN at AVX2, here and
    #               in the quantizers started from here (torch's only)
    import torch
    cache = train.default_out()
    model, calib = work / "model.onnx", work / "calibration.npy"
    for path in (model, calib):
        shutil.copyfile(cache / path.name, path)
    decode = work / "decode.onnx"
    lm.export_cached(torch.load(cache / "model.pt"), decode, lm.Config())
    decode_calib = work / "decode-calibration"
    decode_calibration(decode, np.load(calib), decode_calib)
    return model, calib, np.load(cache / "evaluation.npy"), decode, decode_calib


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        return worker(*sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=str(here.parent.parent / "build"))
    parser.add_argument("--work", help="folder for the models (default: a "
                        "new temporary one)")
    parser.add_argument("--markdown", help="also write the table there")
    parser.add_argument("--only", help="only the rows whose 'tool method' "
                        "contains one of these comma-separated substrings")
    args = parser.parse_args()
    build = Path(args.build).resolve()
    work = Path(args.work or tempfile.mkdtemp(prefix="qdq-llm-")).resolve()
    work.mkdir(parents=True, exist_ok=True)

    # Every tool reads a copy of the model, which must not change.
    model, calib, evaluation, decode, decode_calib = prepare(work)
    digest = hashlib.sha256(model.read_bytes()).hexdigest()

    import onnxruntime
    print(f"# {machine()}; onnxruntime {onnxruntime.__version__}; models "
          f"in {work}", flush=True)
    empty_spec = work / "empty-spec.json"
    empty_spec.write_text("[]\n")

    score = Scorer(model, decode, evaluation)
    subset = lm.logits(model, score.tokens["decode"])
    prefill_on_subset = score.perplexity("decode", subset)
    difference = abs(score.fp32["decode"] / prefill_on_subset - 1)
    ours_error = check_our_import(build, decode, decode_calib, work)
    print(f"# decode step, {DECODE_SEQUENCES} x {evaluation.shape[1]} bytes "
          f"token by token from an empty cache: perplexity "
          f"{score.fp32['decode']:.6f}, the prefill model's on the same "
          f"sequences {prefill_on_subset:.6f} (relative difference "
          f"{difference:.1e}); qdq-run's logits at past length 0 against "
          f"ONNX Runtime's: {ours_error:.1e} of their range", flush=True)
    if difference > 1e-4:
        raise SystemExit("the decode step's perplexity differs from the "
                         f"prefill model's by {difference:.1e} (limit 1e-4)")

    table = MarkdownTable(HEADER)
    emit = table.add
    emit("prefill", "FP32", f"{len(evaluation)} x {evaluation.shape[1]} "
         "held-out bytes", f"{score.fp32['prefill']:.4f}", "", "", "", "",
         "", "", "")
    emit("decode step, token by token", "FP32",
         f"{DECODE_SEQUENCES} x {evaluation.shape[1]} held-out bytes",
         f"{score.fp32['decode']:.4f}", "", "", "", "", "", "",
         f"prefill model on them: {prefill_on_subset:.4f}")
    only = args.only.split(",") if args.only else None
    for index, (section, tool, method, kind, source, how) in enumerate(
            methods(build, model, decode, calib, decode_calib, empty_spec)):
        if only and not any(s in f"{tool} {method}" for s in only):
            continue
        out = work / f"{index:02d}.onnx"
        if isinstance(how, list):
            command = ours(build, source, out, *how)
        else:
            command = peer(how[0], source, calib, out, *how[1:])
        status, seconds, rss, message = measured(command)
        details = (json.loads(Path(f"{out}.json").read_text())
                   if Path(f"{out}.json").exists() else {})
        call = f"{details['seconds']:.1f}" if "seconds" in details else ""
        note = details.get("note", "")
        if status != 0 or not out.exists():
            emit(section, tool, method, "", "", "", "", f"{seconds:.1f}",
                 call, f"{rss:.0f}", f"failed: {message}")
            continue
        try:
            perplexity, change, agreement, sqnr = score(kind, out)
        except Exception as error:  # ONNX Runtime refuses the model
            emit(section, tool, method, "", "", "", "", f"{seconds:.1f}",
                 call, f"{rss:.0f}", "ONNX Runtime cannot run it: "
                 f"{str(error).splitlines()[0][:300]}")
            continue
        emit(section, tool, method, f"{perplexity:.4f}", f"{change:+.2f}",
             f"{agreement:.2f}", f"{sqnr:.1f}", f"{seconds:.1f}", call,
             f"{rss:.0f}", note)
    table.write(args.markdown)
    if hashlib.sha256(model.read_bytes()).hexdigest() != digest:
        raise SystemExit(f"{model} changed during the run: a tool wrote it")


if __name__ == "__main__":
    main()
