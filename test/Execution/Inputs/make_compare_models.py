#!/usr/bin/env python3
"""Writes a small classifier with a dynamic batch, DIR/float.onnx, and 16
samples for it, DIR/data.npy (see compare.test):

    make_compare_models.py DIR
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(5)


def weights(*shape, scale=0.3):
    return rng.standard_normal(shape).astype(np.float32) * scale


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["p"], name="gap"),
        helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fcw", "fcb"], ["logits"], name="fc",
                         transB=1),
    ]
    inits = [numpy_helper.from_array(a, n) for n, a in [
        ("w1", weights(8, 3, 3, 3)), ("b1", weights(8)),
        ("w2", weights(16, 8, 3, 3, scale=0.2)), ("b2", weights(16)),
        ("fcw", weights(10, 16)), ("fcb", weights(10))]]
    graph = helper.make_graph(
        nodes, "classifier",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["N", 3, 8, 8])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                       ["N", 10])],
        inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    with open(os.path.join(out, "float.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    np.save(os.path.join(out, "data.npy"),
            rng.standard_normal((16, 3, 8, 8)).astype(np.float32))


if __name__ == "__main__":
    main()
