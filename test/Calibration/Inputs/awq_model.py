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
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

K, N = 128, 64


def data(n, seed):
    x = np.random.default_rng(seed).standard_normal((n, K)).astype(np.float32)
    x[:, :8] *= 25
    return x


def make(work):
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((K, N)) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((N, 16)) * 0.1).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
             helper.make_node("Relu", ["h"], ["r"], name="relu"),
             helper.make_node("MatMul", ["r", "w2"], ["y"], name="fc2")]
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 16])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    onnx.save(helper.make_model(graph, ir_version=8,
                                opset_imports=[helper.make_opsetid("", 17)]),
              work / "m.onnx")
    shared = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"], name="fc1"),
         helper.make_node("Relu", ["h"], ["r"], name="relu"),
         helper.make_node("MatMul", ["r", "w"], ["y"], name="fc2")], "shared",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", K])],
        [numpy_helper.from_array(
            (rng.standard_normal((K, K)) * 0.1).astype(np.float32), "w")])
    onnx.save(helper.make_model(shared, ir_version=8,
                                opset_imports=[helper.make_opsetid("", 17)]),
              work / "shared.onnx")
    np.save(work / "calib.npy", data(256, 1))
    np.save(work / "test.npy", data(512, 2))


def evaluate(work):
    x = np.load(work / "test.npy")

    def run(name):
        session = ort.InferenceSession(str(work / name),
                                       providers=["CPUExecutionProvider"])
        return session.run(None, {"x": x})[0]

    reference = run("m.onnx")
    sqnr = {}
    for name in ("rtn", "awq"):
        y = run(name + ".onnx")
        sqnr[name] = 10 * np.log10((reference ** 2).sum()
                                   / ((y - reference) ** 2).sum())
    model = onnx.load(work / "awq.onnx")
    print("awq nodes:", " ".join(n.op_type for n in model.graph.node))
    print(f"held-out SQNR: round to nearest {sqnr['rtn']:.1f} dB, "
          f"awq {sqnr['awq']:.1f} dB, better: {sqnr['awq'] > sqnr['rtn']}")


if __name__ == "__main__":
    {"make": make, "evaluate": evaluate}[sys.argv[1]](Path(sys.argv[2]))
