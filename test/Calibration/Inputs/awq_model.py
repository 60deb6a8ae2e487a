#!/usr/bin/env python3
"""A two-layer perceptron whose inputs have a few salient channels (25x
the others), the case activation-aware weight scaling is for.

    awq_model.py make DIR       writes DIR/m.onnx, calib.npy and test.npy,
                                and shared.onnx, whose two layers share
                                one weight
    awq_model.py evaluate DIR   scores DIR/rtn.onnx and DIR/awq.onnx
                                against m.onnx on the held-out test.npy
                                in ONNX Runtime
"""
import sys
from pathlib import Path

import numpy as np
import onnx

from perceptrons import run, save_mlp, sqnr

K, N = 128, 64


def data(n, seed):
    x = np.random.default_rng(seed).standard_normal((n, K)).astype(np.float32)
    x[:, :8] *= 25
    return x


def make(work):
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((K, N)) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((N, 16)) * 0.1).astype(np.float32)
    save_mlp(work / "m.onnx", w1, w2)
    w = (rng.standard_normal((K, K)) * 0.1).astype(np.float32)
    save_mlp(work / "shared.onnx", w, w, weight_names=("w", "w"))
    np.save(work / "calib.npy", data(256, 1))
    np.save(work / "test.npy", data(512, 2))


def evaluate(work):
    x = np.load(work / "test.npy")
    reference = run(work / "m.onnx", x)
    score = {name: sqnr(reference, run(work / (name + ".onnx"), x))
             for name in ("rtn", "awq")}
    model = onnx.load(work / "awq.onnx")
    print("awq nodes:", " ".join(n.op_type for n in model.graph.node))
    print(f"held-out SQNR: round to nearest {score['rtn']:.1f} dB, "
          f"awq {score['awq']:.1f} dB, better: {score['awq'] > score['rtn']}")


if __name__ == "__main__":
    {"make": make, "evaluate": evaluate}[sys.argv[1]](Path(sys.argv[2]))
