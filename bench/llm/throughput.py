#!/usr/bin/env python3
"""qdq-run's execution throughput against ONNX Runtime's on bench/llm's
trained decoder (lm.py, train.py), prefill and decode, FP32, W8A8 and
int4 weight-only (issue 44: "qdq-run at least 0.7 of ONNX Runtime's
throughput on the decoders, prefill and decode").

Models (all from the cache's trained weights, in the work folder):

- prefill: model.onnx, 8 held-out sequences of 128 bytes
  (evaluation.npy[:8]): 8 x 128 = 1024 tokens a run;
- decode: the decode step (lm.export_cached of model.pt, as run.py makes
  it), 8 sequences, one new token each (byte 128 of the same held-out
  sequences) on a past of 127: the past_*/present_* tensors come from a
  real FP32 run, the FP32 decode step in ONNX Runtime (rewrites off) fed
  the sequences' first 127 bytes from an empty cache. 8 tokens a run.

Each in three forms, made by qdq-opt:

- FP32 (the model itself);
- W8A8: --insert-qdq=transformer --calibrate=calibration.npy (prefill);
  the decode step calibrates on run.py's decode-calibration folder (the
  calibration sequences through the FP32 decode step, past lengths 0, 32,
  64, 96), since it takes a cache as well as token ids;
- int4 weight-only, blocks of 32: --insert-qdq="weight-format=int4
  activation-format=none weight-block-size=32" (QDQ: blocked
  DequantizeLinear + MatMul, opset 21), and the same with
  --onnx-matmul-nbits (ONNX Runtime's com.microsoft MatMulNBits), run by
  ONNX Runtime only.

Timing, both tools on the same feeds, `--threads` threads (2), in turns:
`--rounds` rounds (5), and in each round every model runs in qdq-run and
in ONNX Runtime back to back (which goes first alternates by round).

- qdq-run: `qdq-run M --input feeds.npz --repeat N --output ...` with
  OMP_NUM_THREADS=threads: one process a round, which compiles the model,
  runs it once to warm up, then N times, and prints the median time
  per run; that figure is what counts. Its compile time comes from a separate
  run before the rounds, `qdq-run M --input feeds.npz --mlir-timing`: the
  `Total` wall time that reports (loading, specializing, MLIR pipeline,
  LLVM), the process's start and file reading apart.
- ONNX Runtime: one InferenceSession per model (CPUExecutionProvider,
  ORT_ENABLE_ALL, the default; intra_op_num_threads=threads), made once
  before the rounds (its creation time is reported); each round runs it 3
  times to warm up and takes the median of N timed `run` calls.

N is --prefill-repeat (20) and --decode-repeat (200). Per model and tool,
the median over the rounds; throughput in tokens/s (prefill: 8 x 128 per
run; decode: 8 per run), and qdq-run / ONNX Runtime as the ratio of the
two medians; the range of the per-round ratios beside it.

Outputs: qdq-run's (every output; the last round's files) against ONNX
Runtime's on the same feeds, max |diff| / (max - min) of ONNX Runtime's
output, per output and the worst over them: against the session that was
timed (ORT_ENABLE_ALL, which runs QDQ W8A8 with integer kernels and fuses
blocked int4 DequantizeLinear + MatMul into MatMulNBits with int8
activations, accuracy_level 4), and against ONNX Runtime with its rewrites
off (Q/DQ computed in float as written, as qdq-run computes them).

usage: bench/llm/throughput.py [--build build] [--work DIR] [--rounds 5]
       [--threads 2] [--prefill-repeat 20] [--decode-repeat 200]
       [--markdown table.md]
"""
import argparse
import collections
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
from common import ort as bench_ort  # noqa: E402
from common.table import MarkdownTable  # noqa: E402
from llm import run as llm_run  # noqa: E402  (prepare, machine)

BATCH, SEQUENCE = 8, 128
INT4 = ("--insert-qdq=weight-format=int4 activation-format=none "
        "weight-block-size=32")


def qdq_opt(build, source, out, *options):
    subprocess.run([str(build / "bin" / "qdq-opt"), str(source), *options,
                    "-o", str(out)], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, text=True)


def ort_session(path, threads, optimize=True, save=None):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.log_severity_level = 3
    if not optimize:
        options.graph_optimization_level = \
            ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    if save:
        options.optimized_model_filepath = str(save)
    return ort.InferenceSession(str(path), options,
                                providers=["CPUExecutionProvider"])


def qdq_run(build, model, feeds, outputs, threads, repeat=None):
    """qdq-run on `feeds`, writing every output. With `repeat`: the ms per
    run it prints; without: one run with --mlir-timing, and the `Total`
    wall time that reports, in s (the time before the first run: loading,
    specializing, the MLIR pipeline, LLVM). Raises RuntimeError with
    qdq-run's message if it fails."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    command = [str(build / "bin" / "qdq-run"), str(model), "--input",
               str(feeds)]
    command += ["--repeat", str(repeat)] if repeat else ["--mlir-timing"]
    command += [a for o in outputs for a in ("--output", str(o))]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    text = done.stdout + done.stderr
    if done.returncode:
        lines = [line for line in text.splitlines() if "error" in line]
        raise RuntimeError((lines or text.splitlines() or ["?"])[-1].strip())
    if repeat:
        return float(re.search(r"qdq-run: ([\d.]+) ms per run",
                               text).group(1))
    total = [line for line in text.splitlines()
             if re.search(r"\)\s+Total\s*$", line)]
    return float(re.findall(r"([\d.]+) \(", total[-1])[1])


def relative_diff(reference, candidate):
    reference = reference.astype(np.float64)
    span = reference.max() - reference.min()
    diff = np.abs(reference - candidate.astype(np.float64)).max()
    return float(diff / span) if span else float(diff)


def op_counts(path):
    import onnx
    counts = collections.Counter(n.op_type for n in onnx.load(
        str(path)).graph.node)
    keep = ("MatMulIntegerToFloat", "QLinearMatMul", "MatMulInteger",
            "DynamicQuantizeMatMul", "MatMulNBits", "MatMul", "FusedMatMul",
            "QuantizeLinear", "DequantizeLinear")
    return ", ".join(f"{counts[k]} {k}" for k in keep if counts[k])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=str(here.parent.parent / "build"))
    parser.add_argument("--work", help="folder for the models and feeds "
                        "(default: a new temporary one)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--prefill-repeat", type=int, default=20)
    parser.add_argument("--decode-repeat", type=int, default=200)
    parser.add_argument("--markdown", help="also write the table there")
    args = parser.parse_args()
    build = Path(args.build).resolve()
    work = Path(args.work or tempfile.mkdtemp(prefix="qdq-llm-tp-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()

    model, calib, evaluation, decode, decode_calib = llm_run.prepare(work)

    import onnxruntime
    print(f"# {llm_run.machine()}; onnxruntime {onnxruntime.__version__}; "
          f"{args.threads} threads; work folder {work}", flush=True)

    # The quantized models.
    made = {}
    for kind, source, calibration in (("prefill", model, calib),
                                      ("decode", decode, decode_calib)):
        made[kind, "FP32"] = source
        for name, options in (
                ("W8A8", ["--insert-qdq=transformer",
                          f"--calibrate={calibration}"]),
                ("int4 b32 QDQ", [INT4]),
                ("int4 b32 MatMulNBits", [INT4, "--onnx-matmul-nbits"])):
            out = work / f"{kind}-{name.replace(' ', '-')}.onnx"
            start = time.perf_counter()
            qdq_opt(build, source, out, *options)
            made[kind, name] = out
            print(f"# {out.name}: qdq-opt {time.perf_counter() - start:.1f} s",
                  flush=True)

    # Feeds: prefill, 8 x 128 held-out bytes; decode, byte 128 of the same
    # sequences on the FP32 cache of their first 127.
    tokens = evaluation[:BATCH, :SEQUENCE].astype(np.int64)
    feeds = {"prefill": {"input_ids": tokens}}
    fp32 = ort_session(decode, args.threads, optimize=False)
    inputs, names = fp32.get_inputs(), [o.name for o in fp32.get_outputs()]
    empty = {i.name: np.zeros((BATCH, i.shape[1], 0, i.shape[3]), np.float32)
             for i in inputs[1:]}
    first = fp32.run(names, {"input_ids": tokens[:, :-1], **empty})
    past = {n.replace("present", "past", 1): v
            for n, v in zip(names[1:], first[1:])}
    feeds["decode"] = {"input_ids": tokens[:, -1:], **past}
    for kind, f in feeds.items():
        np.savez(work / f"{kind}.npz", **f)
    # The decode step's logits against the prefill model's last position.
    step = fp32.run(names, feeds["decode"])[0][:, 0]
    whole = ort_session(model, args.threads, optimize=False).run(
        None, feeds["prefill"])[0][:, -1]
    print(f"# decode feeds: past of 127 from the FP32 decode step; its "
          f"logits for byte 128 against the FP32 prefill model's last "
          f"position: max |diff| / range {relative_diff(whole, step):.1e}",
          flush=True)

    # What each tool runs: (kind, label, qdq-run's model or None, ORT's).
    configs = []
    for kind in ("prefill", "decode"):
        configs += [
            (kind, "FP32", made[kind, "FP32"], made[kind, "FP32"]),
            (kind, "W8A8", made[kind, "W8A8"], made[kind, "W8A8"]),
            (kind, "int4 b32 (QDQ both)", made[kind, "int4 b32 QDQ"],
             made[kind, "int4 b32 QDQ"]),
            (kind, "int4 b32 (ORT: MatMulNBits)", None,
             made[kind, "int4 b32 MatMulNBits"]),
        ]

    # Whether qdq-run takes the MatMulNBits form (it is ONNX Runtime's).
    failures = []
    for kind in ("prefill", "decode"):
        path = made[kind, "int4 b32 MatMulNBits"]
        try:
            qdq_run(build, path, work / f"{kind}.npz",
                    [work / f"nbits.{i}.npy" for i in
                     range(len(ort_session(path, 1).get_outputs()))],
                    args.threads)
        except RuntimeError as error:
            failures.append(f"qdq-run {path.name} --input {kind}.npz: "
                            f"{error}")
            print(f"# qdq-run on {path.name}: {error}", flush=True)

    # ONNX Runtime's sessions, made once; what its rewrites turned each
    # quantized model into.
    sessions, session_s = {}, {}
    for kind, label, _, ort_model in configs:
        start = time.perf_counter()
        sessions[kind, label] = ort_session(ort_model, args.threads)
        session_s[kind, label] = time.perf_counter() - start
    for kind, label, _, ort_model in configs:
        if label != "FP32":
            saved = work / f"ort-optimized-{ort_model.name}"
            ort_session(ort_model, args.threads, save=saved)
            print(f"# ORT_ENABLE_ALL turns {ort_model.name} into: "
                  f"{op_counts(saved)}", flush=True)

    # qdq-run's compile time, one run each with --mlir-timing (which adds
    # about 0.5% to a run's time, so the timed runs go without it).
    compile_s = {}
    for kind, label, qdq_model, ort_model in configs:
        if qdq_model is not None:
            compile_s[kind, label] = qdq_run(
                build, qdq_model, work / f"{kind}.npz",
                [work / f"compile.{i}.npy" for i in
                 range(len(sessions[kind, label].get_outputs()))],
                args.threads)

    repeat = {"prefill": args.prefill_repeat, "decode": args.decode_repeat}
    qdq_ms = collections.defaultdict(list)
    ort_ms = collections.defaultdict(list)
    round_ratio = collections.defaultdict(list)
    qdq_outputs = {}
    for r in range(args.rounds):
        for kind, label, qdq_model, ort_model in configs:
            key = (kind, label)
            session = sessions[key]
            outputs = [work / f"qdq-run.{kind}.{label.split()[0]}.{i}.npy"
                       for i in range(len(session.get_outputs()))]

            def ours():
                # qdq-run's QDQ int4 figure is shared by both int4 rows:
                # measured once a round, under the QDQ row.
                if qdq_model is None:
                    return
                qdq_ms[key].append(qdq_run(build, qdq_model,
                                           work / f"{kind}.npz", outputs,
                                           args.threads, repeat[kind]))
                qdq_outputs[key] = outputs

            def theirs():
                ort_ms[key].append(bench_ort.run_ms(session, feeds[kind],
                                                    repeat[kind]))

            for step in ((ours, theirs) if r % 2 == 0 else (theirs, ours)):
                step()
        for kind, label, qdq_model, _ in configs:
            source = (kind, label) if qdq_model is not None else \
                (kind, "int4 b32 (QDQ both)")
            round_ratio[kind, label].append(ort_ms[kind, label][-1] /
                                            qdq_ms[source][-1])
        print(f"# round {r + 1}/{args.rounds} done at "
              f"{time.perf_counter() - started:.0f} s", flush=True)

    # Outputs: qdq-run's against ONNX Runtime's, optimized and not.
    header = ("| phase | model | qdq-run tokens/s | ORT tokens/s | qdq-run / "
              "ORT | per-round ratios | qdq-run ms/run | ORT ms/run | "
              "qdq-run compile s | ORT session s | max\\|diff\\|/range vs "
              "ORT timed | vs ORT rewrites off |")
    table = MarkdownTable(header)
    for kind, label, qdq_model, ort_model in configs:
        key = (kind, label)
        source = key if qdq_model is not None else (kind, "int4 b32 (QDQ both)")
        tokens_per_run = BATCH * (SEQUENCE if kind == "prefill" else 1)
        ours_ms = statistics.median(qdq_ms[source])
        theirs_ms = statistics.median(ort_ms[key])
        got = [np.load(p) for p in qdq_outputs[source]]
        timed = sessions[key].run(None, feeds[kind])
        plain = ort_session(ort_model, args.threads, optimize=False).run(
            None, feeds[kind])
        names = [o.name for o in sessions[key].get_outputs()]

        def worst(reference):
            diffs = [relative_diff(a, b) for a, b in zip(reference, got)]
            where = int(np.argmax(diffs))
            return f"{diffs[where]:.1e} ({names[where]})" if len(diffs) > 1 \
                else f"{diffs[0]:.1e}"

        ratios = round_ratio[key]
        table.add(kind, label, f"{1000 * tokens_per_run / ours_ms:.0f}",
                  f"{1000 * tokens_per_run / theirs_ms:.0f}",
                  f"{theirs_ms / ours_ms:.2f}",
                  f"{min(ratios):.2f}-{max(ratios):.2f}", f"{ours_ms:.3f}",
                  f"{theirs_ms:.3f}", f"{compile_s[source]:.2f}",
                  f"{session_s[key]:.2f}", worst(timed), worst(plain))
    for failure in failures:
        print(f"# failed: {failure}")
    print(f"# total {time.perf_counter() - started:.0f} s")
    table.write(args.markdown)


if __name__ == "__main__":
    main()
