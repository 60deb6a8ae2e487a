#!/usr/bin/env python3
"""A blocked DequantizeLinear (blocks of 32 along axis 0) of a K x 128
weight, added to the input, for qdq-run against NumPy:

    blocked_dequantize.py make DIR K     writes DIR/m.onnx, x.npy, want.npy
    blocked_dequantize.py check DIR      compares DIR/y.npy with want.npy
"""
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

N, BLOCK = 128, 32


def make(work, k):
    rng = np.random.default_rng(0)
    q = rng.integers(-7, 8, (k, N)).astype(np.int8)
    s = (rng.random((k // BLOCK, N)) + 0.5).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("DequantizeLinear", ["q", "s"], ["w"], axis=0,
                          block_size=BLOCK),
         helper.make_node("Add", ["x", "w"], ["y"])], "blocked",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [k, N])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [k, N])],
        [numpy_helper.from_array(q, "q"), numpy_helper.from_array(s, "s")])
    onnx.save(helper.make_model(graph,
                                opset_imports=[helper.make_opsetid("", 21)]),
              work / "m.onnx")
    x = np.random.default_rng(1).standard_normal((k, N)).astype(np.float32)
    np.save(work / "x.npy", x)
    np.save(work / "want.npy", x + q.astype(np.float32)
            * np.repeat(s, BLOCK, axis=0))


def check(work):
    y, want = np.load(work / "y.npy"), np.load(work / "want.npy")
    rows = np.nonzero(np.abs(y - want).max(axis=1) > 1e-5)[0]
    print("rows off:", len(rows), rows[:8].tolist())


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(Path(sys.argv[2]), int(sys.argv[3]))
    else:
        check(Path(sys.argv[2]))
