#!/usr/bin/env python3
"""Runs each function of contraction_products.mlir through
qdq-vectorize-contractions (without threads, and with 1 to 3; with 32-wide
tiles for 32 columns, as on AVX-512) and qdq-run, and compares its result
with NumPy's.

usage: contraction_products.py qdq-opt qdq-run products.mlir work-dir
"""
import subprocess
import sys
from pathlib import Path

import numpy as np

relu = lambda x: np.maximum(x, 0)  # noqa: E731
CASES = {
    "two_biases": ([(16, 8), (8, 32), (32,), (16, 8), (8, 32), (32,)],
                   lambda a, b, b1, c, d, b2: relu(a @ b + b1 + c @ d + b2)),
    "chained": ([(16, 8), (8, 4), (4,), (4, 32)],
                lambda a, b, b1, d: (a @ b + b1) @ d),
    "bias_from_product": ([(8,), (8, 32), (16, 8), (8, 32)],
                          lambda v, w, c, d: c @ d + relu(v @ w)),
    "dead_product": ([(16, 8), (8, 32), (32,)], lambda a, b, b1: a),
}
# 32-wide tiles on 32 columns: the product behind a bias is one loop of one
# iteration, which the canonicalizer folds away (a crash once: the bias read
# the loop's result after it was gone).
OPTIONS = ["parallel=false", "threads=1", "threads=2", "threads=3",
           "threads=2 wide-columns=32"]


def main():
    qdq_opt, qdq_run, source, work = sys.argv[1:5]
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    rng = np.random.RandomState(0)
    failed = 0
    for name, (shapes, reference) in CASES.items():
        arrays = [rng.uniform(-2, 2, s).astype(np.float32) for s in shapes]
        args = []
        for i, a in enumerate(arrays):
            np.save(work / f"{name}{i}.npy", a)
            args += ["--input", str(work / f"{name}{i}.npy")]
        want = reference(*[a.astype(np.float64) for a in arrays])
        for option in OPTIONS:
            tiled = work / f"{name}.mlir"
            subprocess.run([qdq_opt, source, "--qdq-vectorize-contractions="
                            f"rows=8 columns=16 depth=4 {option}", "-o",
                            str(tiled)], check=True)
            subprocess.run([qdq_run, str(tiled), "--entry", name, *args,
                            "--output", str(work / "y.npy")], check=True,
                           capture_output=True)
            got = np.load(work / "y.npy")
            error = float(np.abs(got - want).max() / np.abs(want).max())
            verdict = "ok" if error < 1e-5 else "FAIL"
            failed += verdict == "FAIL"
            print(f"{name} {option}: {verdict} {error:.1e}")
    print("all match" if not failed else f"{failed} differ")


if __name__ == "__main__":
    main()
