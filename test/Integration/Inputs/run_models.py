#!/usr/bin/env python3
"""Runs ONNX models in ONNX Runtime (CPU) on the same input and compares them.

    run_models.py reference.onnx candidate.onnx --shape 1x3x64x64
        [--rtol R] [--atol A] [--seed S]

Every model input gets the same deterministic pseudo-random data, uniform in
[-1, 1), of the shape --shape gives. Each output of the candidate must match
the reference output of the same index within |a - b| <= atol + rtol * |b|.
Prints the largest difference per output and exits 1 on a mismatch, 2 when a
model cannot be loaded or run.

    run_models.py model.onnx --shape 1x3x64x64 --run-only

only checks that ONNX Runtime loads and runs the model and that its outputs
are finite.

Graph optimizations are off: a QDQ model runs its QuantizeLinear and
DequantizeLinear as written, so the comparison sees what the file says.
"""
import argparse
import sys

import numpy as np

try:
    import onnxruntime as ort
except ImportError as error:  # fail loudly, never skip
    sys.exit(f"run_models: onnxruntime is not installed ({error}); "
             "run scripts/setup.sh, which installs requirements.txt")


def fail(message, status=2):
    print(f"run_models: {message}", file=sys.stderr)
    sys.exit(status)


def load(path):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    except Exception as error:  # ORT raises several unrelated types
        fail(f"cannot load {path}: {error}")


def run(session, feeds, path):
    try:
        return session.run(None, feeds)
    except Exception as error:
        fail(f"cannot run {path}: {error}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="+")
    parser.add_argument("--shape", required=True,
                        help="dimensions of every input, as 1x3x64x64")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--run-only", action="store_true")
    args = parser.parse_args()
    if len(args.models) != (1 if args.run_only else 2):
        fail("give a reference and a candidate model, or one model with --run-only")
    try:
        shape = [int(d) for d in args.shape.split("x")]
    except ValueError:
        fail(f"bad --shape {args.shape!r}")
    if any(d <= 0 for d in shape):
        fail(f"bad --shape {args.shape!r}")

    reference = load(args.models[0])
    rng = np.random.default_rng(args.seed)
    feeds = {i.name: rng.uniform(-1, 1, shape).astype(np.float32)
             for i in reference.get_inputs()}
    expected = run(reference, feeds, args.models[0])
    names = [o.name for o in reference.get_outputs()]

    if args.run_only:
        for name, value in zip(names, expected):
            bad = np.flatnonzero(~np.isfinite(value))
            if bad.size:
                fail(f"output {name}[{bad[0]}] is {value.reshape(-1)[bad[0]]}", 1)
            dims = "x".join(map(str, value.shape))
            print(f"ran {args.models[0]}: output {name} [{dims}] finite")
        return 0

    candidate = load(args.models[1])
    candidate_names = [o.name for o in candidate.get_outputs()]
    if len(candidate_names) != len(names):
        fail(f"{len(names)} outputs against {len(candidate_names)}", 1)
    for i in candidate.get_inputs():
        if i.name not in feeds:
            fail(f"candidate input {i.name} is not in the reference", 1)
    actual = run(candidate, {i.name: feeds[i.name] for i in candidate.get_inputs()},
                 args.models[1])

    ok = True
    for index, (ref_name, cand_name, a, b) in enumerate(
            zip(names, candidate_names, actual, expected)):
        if a.shape != b.shape:
            print(f"output {index}: shape {list(a.shape)} against {list(b.shape)}",
                  file=sys.stderr)
            ok = False
            continue
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        diff = np.abs(a64 - b64)
        dims = "x".join(map(str, b.shape))
        max_abs = float(np.nanmax(diff)) if diff.size else 0.0
        print(f"output {index} ({ref_name} / {cand_name}) [{dims}]: "
              f"max |diff| = {max_abs:.3e}")
        excess = diff - (args.atol + args.rtol * np.abs(b64))
        # NaN matches only NaN.
        excess[np.isnan(a64) & np.isnan(b64)] = -np.inf
        excess[np.isnan(a64) != np.isnan(b64)] = np.inf
        worst = int(np.argmax(excess)) if excess.size else 0
        if excess.size and excess.reshape(-1)[worst] > 0:
            print(f"output {index}: element {worst} is {a.reshape(-1)[worst]}, "
                  f"expected {b.reshape(-1)[worst]} (rtol {args.rtol}, atol {args.atol})",
                  file=sys.stderr)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
