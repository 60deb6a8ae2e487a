#!/usr/bin/env python3
"""A transformer-shaped block whose activations have outlier channels, the
case SmoothQuant is for: LayerNormalization (4 of 64 channels scaled 40x)
read by three projections (q, k, v), then an output projection whose input
has outliers too but comes from a Mul, not a normalization.

    smooth_model.py make DIR      writes DIR/m.onnx, calib.npy and test.npy
    smooth_model.py evaluate DIR  scores DIR/plain.onnx and DIR/smooth.onnx
                                  against m.onnx on the held-out test.npy in
                                  ONNX Runtime
"""
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from perceptrons import run, sqnr

K = 64


def data(n, seed):
    return np.random.default_rng(seed).standard_normal((n, 8, K)).astype(
        np.float32)


def make(work):
    rng = np.random.default_rng(0)
    gamma = np.ones(K, np.float32)
    gamma[[3, 17, 40, 51]] = 40.0
    beta = (rng.standard_normal(K) * 0.1).astype(np.float32)
    weights = {name: (rng.standard_normal((K, K)) / np.sqrt(K)).astype(
        np.float32) for name in ("wq", "wk", "wv", "wo")}
    outlier = np.ones(K, np.float32)
    outlier[[5, 9]] = 30.0
    nodes = [
        helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["n"],
                         name="norm", axis=-1),
        helper.make_node("MatMul", ["n", "wq"], ["q"], name="q_proj"),
        helper.make_node("MatMul", ["n", "wk"], ["k"], name="k_proj"),
        helper.make_node("MatMul", ["n", "wv"], ["v"], name="v_proj"),
        helper.make_node("Mul", ["q", "k"], ["qk"], name="gate"),
        helper.make_node("Add", ["qk", "v"], ["h"], name="mix"),
        helper.make_node("Mul", ["h", "outlier"], ["ho"], name="spread"),
        helper.make_node("MatMul", ["ho", "wo"], ["y"], name="o_proj"),
    ]
    inits = [numpy_helper.from_array(gamma, "gamma"),
             numpy_helper.from_array(beta, "beta"),
             numpy_helper.from_array(outlier, "outlier")]
    inits += [numpy_helper.from_array(w, name) for name, w in weights.items()]
    graph = helper.make_graph(
        nodes, "block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 8, K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 8, K])],
        inits)
    onnx.save(helper.make_model(graph, ir_version=8,
                                opset_imports=[helper.make_opsetid("", 17)]),
              work / "m.onnx")
    np.save(work / "calib.npy", data(64, 1))
    np.save(work / "test.npy", data(64, 2))


def evaluate(work):
    x = np.load(work / "test.npy")
    reference = run(work / "m.onnx", x)
    plain = sqnr(reference, run(work / "plain.onnx", x))
    smooth = sqnr(reference, run(work / "smooth.onnx", x))
    print("smooth nodes:", " ".join(
        n.op_type for n in onnx.load(work / "smooth.onnx").graph.node
        if n.op_type not in ("QuantizeLinear", "DequantizeLinear")))
    print("held-out SQNR: W8A8 %.1f dB, smoothed %.1f dB, better: %s"
          % (plain, smooth, smooth > plain + 1.0))


if __name__ == "__main__":
    command, folder = sys.argv[1], Path(sys.argv[2])
    if command == "make":
        make(folder)
    else:
        evaluate(folder)
