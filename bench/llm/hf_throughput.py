#!/usr/bin/env python3
"""qdq-run's FP32 throughput against ONNX Runtime's on the Hugging Face
decoders of hf.py (python/tests/hf_decoders.py's "small" Llama, Qwen2,
Phi3 and GPT-2, exported by Optimum), the second set of decoders for
issue 44's "qdq-run at least 0.7 of ONNX Runtime's throughput"
(throughput.py measures the trained decoder, quantized forms included).

Per architecture, in one script and on `--threads` threads (2):

- prefill: 8 prompts x 64 random tokens from an empty cache;
- decode: the one-token step after 8 prompts of 64 tokens, on the cache
  ONNX Runtime's run of the prompts wrote.

qdq-run: `qdq-run M --input feeds.npz --repeat N`, OMP_NUM_THREADS=threads,
its printed median per run (it compiles and warms up first). ONNX Runtime:
one session (ORT_ENABLE_ALL, intra_op_num_threads=threads), 3 warm-up
runs, the median of N. `--rounds` rounds (3), the tools alternating which
goes first; the median over rounds, and qdq-run / ONNX Runtime as the
ratio of ONNX Runtime's time to qdq-run's. Also the largest difference of
qdq-run's outputs from ONNX Runtime's (rewrites off), relative to each
output's range.

usage: bench/llm/hf_throughput.py [--build build] [--work DIR]
       [--architectures llama,qwen2,phi3,gpt2] [--rounds 3] [--threads 2]
       [--prefill-repeat 20] [--decode-repeat 200] [--markdown table.md]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
sys.path.insert(0, str(here.parent.parent / "python" / "tests"))
import hf_decoders  # noqa: E402
from common import ort as bench_ort  # noqa: E402
from common.table import MarkdownTable  # noqa: E402
from llm import hf, run  # noqa: E402

HEADER = ("| architecture | phase | qdq-run ms | ORT ms | qdq-run / ORT | "
          "per-round ratios | max\\|diff\\|/range vs ORT |")


def qdq_run_ms(build, model, feeds_file, outputs, repeat, threads):
    """qdq-run's median ms per run, and its outputs' files."""
    result = subprocess.run(
        [str(build / "bin" / "qdq-run"), str(model), f"--input={feeds_file}",
         f"--repeat={repeat}"] + [f"--output={o}" for o in outputs],
        capture_output=True, text=True, check=True,
        env=dict(os.environ, OMP_NUM_THREADS=str(threads)))
    match = re.search(r"([0-9.]+) ms", result.stdout + result.stderr)
    if not match:
        raise SystemExit(f"qdq-run printed no time: {result.stdout}{result.stderr}")
    return float(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=str(here.parent.parent / "build"))
    parser.add_argument("--work", help="folder for the models (default: a new "
                        "temporary one)")
    parser.add_argument("--architectures", default=",".join(hf_decoders.ARCHITECTURES))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--prefill-repeat", type=int, default=20)
    parser.add_argument("--decode-repeat", type=int, default=200)
    parser.add_argument("--markdown", help="also write the table there")
    args = parser.parse_args()
    build = Path(args.build).resolve()
    work = Path(args.work or tempfile.mkdtemp(prefix="qdq-hf-tp-")).resolve()
    import onnxruntime
    print(f"# {run.machine()}; onnxruntime {onnxruntime.__version__}; "
          f"{args.threads} threads; models in {work}", flush=True)
    table = MarkdownTable(HEADER)
    for name in args.architectures.split(","):
        model = hf.export(name, work / name)
        prefill = hf.prompts(model, 8, 64, 0)
        _, decode = hf_decoders.prefill_and_decode(
            model, batch=8, prompt=64, padding=0, vocab=hf.VOCAB, seed=1)
        session = bench_ort.session(model, threads=args.threads)
        exact = bench_ort.session(model, optimize=False, threads=args.threads)
        names = [o.name for o in session.get_outputs()]
        for phase, feeds, repeat in (("prefill", prefill, args.prefill_repeat),
                                     ("decode", decode, args.decode_repeat)):
            feeds_file = work / name / f"{phase}.npz"
            np.savez(feeds_file, **feeds)
            outputs = [work / name / f"{phase}.{n}.npy" for n in names]
            ours, theirs = [], []
            for round_ in range(args.rounds):
                order = [0, 1] if round_ % 2 == 0 else [1, 0]
                for which in order:
                    if which == 0:
                        ours.append(qdq_run_ms(build, model, feeds_file, outputs,
                                               repeat, args.threads))
                    else:
                        theirs.append(bench_ort.run_ms(session, feeds, repeat))
            reference = dict(zip(names, exact.run(None, feeds)))
            worst = max(float(np.abs(np.load(o) - reference[n]).max()
                              / np.ptp(reference[n]))
                        for n, o in zip(names, outputs))
            ratios = [t / o for o, t in zip(ours, theirs)]
            table.add(name, phase, f"{statistics.median(ours):.3f}",
                      f"{statistics.median(theirs):.3f}",
                      f"{statistics.median(theirs) / statistics.median(ours):.2f}",
                      f"{min(ratios):.2f}-{max(ratios):.2f}", f"{worst:.1e}")
    table.write(args.markdown)


if __name__ == "__main__":
    main()
