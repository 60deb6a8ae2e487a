#!/usr/bin/env python3
"""A two-layer perceptron whose inputs are strongly correlated (128
channels mixed from 16 factors), the case GPTQ's error compensation is
for, and an independent numpy GPTQ to check the pass's integers against.

    gptq_model.py make DIR      writes DIR/m.onnx, calib.npy and test.npy
    gptq_model.py evaluate DIR  scores DIR/rtn.onnx and DIR/gptq.onnx
                                against m.onnx on the held-out test.npy in
                                ONNX Runtime
    gptq_model.py reference DIR BLOCK [act-order]
                                compares DIR/gptq.onnx's fc1 integers with
                                numpy GPTQ on calib.npy (int4 blocks of
                                BLOCK input channels)
"""
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from perceptrons import run, save_mlp, sqnr

K, N, FACTORS = 128, 64, 16


def data(n, seed):
    rng = np.random.default_rng(seed)
    mix = np.random.default_rng(7).standard_normal((FACTORS, K))
    z = rng.standard_normal((n, FACTORS))
    noise = 0.05 * rng.standard_normal((n, K))
    return (z @ mix + noise).astype(np.float32)


def make(work):
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((K, N)) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((N, 16)) * 0.1).astype(np.float32)
    save_mlp(work / "m.onnx", w1, w2)
    np.save(work / "calib.npy", data(512, 1))
    np.save(work / "test.npy", data(512, 2))


def evaluate(work):
    x = np.load(work / "test.npy")
    reference = run(work / "m.onnx", x)
    rtn = sqnr(reference, run(work / "rtn.onnx", x))
    gptq = sqnr(reference, run(work / "gptq.onnx", x))
    print("gptq nodes:", " ".join(
        n.op_type for n in onnx.load(work / "gptq.onnx").graph.node))
    print("held-out SQNR: round to nearest %.1f dB, gptq %.1f dB, better: %s"
          % (rtn, gptq, gptq > rtn + 1.0))


def full_range_scales(v, qmin, qmax):
    """Scales of int4 weights as quant-qdq chooses them (full range), one
    per row of v [n x members]: the smallest that fits the row's minimum and
    maximum into [qmin, qmax]; 1 for a row of zeros."""
    hi = np.maximum(v.max(axis=1), 0).astype(np.float32)
    lo = np.minimum(v.min(axis=1), 0).astype(np.float32)
    scale = np.maximum(hi / np.float32(qmax), lo / np.float32(qmin))
    return np.where(scale > 0, scale, np.float32(1))


def numpy_gptq(w, x, block, act_order, damp=0.01, lazy=128):
    """GPTQ of w [k x n] (x w) for inputs x [rows x k]: symmetric int4 in
    -8..7, one scale per `block` input channels of an output channel, set
    (full_range_scales) from the current values when the block's first
    channel comes up."""
    qmax, qmin = 7, -8
    k = w.shape[0]
    h = x.astype(np.float64).T @ x.astype(np.float64)
    order = np.argsort(-np.diag(h), kind="stable") if act_order else np.arange(k)
    h = h[np.ix_(order, order)]
    h[np.diag_indices(k)] += damp * np.mean(np.diag(h))
    u = np.linalg.cholesky(np.linalg.inv(h)).T  # H^-1 = U^T U
    work = w.astype(np.float64).T[:, order].copy()  # [n x k] in order
    position = np.argsort(order)
    natural_block = np.arange(k) // block
    scales = {}
    q = np.zeros_like(work, dtype=np.int64)
    for c0 in range(0, k, lazy):
        c1 = min(c0 + lazy, k)
        err = np.zeros((work.shape[0], c1 - c0))
        for c in range(c0, c1):
            b = natural_block[order[c]]
            if b not in scales:
                members = position[natural_block == b]
                scales[b] = full_range_scales(
                    work[:, members].astype(np.float32), qmin, qmax)
            s = scales[b]
            q[:, c] = np.clip(np.rint(work[:, c].astype(np.float32) / s),
                              qmin, qmax)
            deq = (q[:, c].astype(np.float32) * s).astype(np.float64)
            e = (work[:, c] - deq) / u[c, c]
            work[:, c] = deq
            err[:, c - c0] = e
            work[:, c + 1:c1] -= np.outer(e, u[c, c + 1:c1])
        work[:, c1:] -= err @ u[c0:c1, c1:]
    return q[:, position].T  # [k x n], natural order


def reference(work, block, act_order):
    model = onnx.load(work / "gptq.onnx")
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    source = onnx.load(work / "m.onnx")
    w1 = numpy_helper.to_array(
        next(i for i in source.graph.initializer if i.name == "w1"))
    dq = next(n for n in model.graph.node
              if n.op_type == "DequantizeLinear" and n.input[0] in inits
              and inits[n.input[0]].shape == (K, N))
    ours = inits[dq.input[0]].astype(np.int64)
    want = numpy_gptq(w1, np.load(work / "calib.npy"), block, act_order)
    same = np.mean(ours == want)
    print("fc1 integers equal to numpy GPTQ: %s (%.4f)" % (same > 0.99, same))


if __name__ == "__main__":
    command, folder = sys.argv[1], Path(sys.argv[2])
    if command == "make":
        make(folder)
    elif command == "evaluate":
        evaluate(folder)
    else:
        reference(folder, int(sys.argv[3]), "act-order" in sys.argv[4:])
