#!/usr/bin/env python3
"""A model with the dense layers MatMulNBits export meets, and the check
that its MatMulNBits form computes what its QDQ form does:

    matmul_nbits_model.py make DIR    writes DIR/m.onnx: x[n, 8, 40] ->
        MatMul by [40, 24] (K not a multiple of the blocks) -> Relu ->
        Gemm-shaped MatMul + bias Add by [24, 32]... as a 3-D MatMul and
        a transposed 2-D Gemm (transB, bias) on a flattened copy
    matmul_nbits_model.py check DIR   runs DIR/qdq.onnx and DIR/nbits.onnx
        in ONNX Runtime (rewrites on: its MatMulNBits kernels) on random
        inputs and prints the node types and the largest difference
"""
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper


def make(work):
    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((40, 24)).astype(np.float32)
    w2 = rng.standard_normal((32, 24)).astype(np.float32)  # Gemm transB
    b2 = rng.standard_normal(32).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
        helper.make_node("Relu", ["h"], ["r"], name="relu"),
        helper.make_node("Reshape", ["r", "flat"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "w2", "b2"], ["y"], name="fc2",
                         transB=1),
    ]
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8, 40])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [32, 32])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2"),
         numpy_helper.from_array(b2, "b2"),
         numpy_helper.from_array(np.array([32, 24], np.int64), "flat")])
    onnx.save(helper.make_model(graph, ir_version=8,
                                opset_imports=[helper.make_opsetid("", 17)]),
              work / "m.onnx")


def run(path, x):
    session = ort.InferenceSession(str(path),
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def check(work):
    model = onnx.load(work / "nbits.onnx")
    onnx.checker.check_model(model, full_check=True)
    print("nodes:", " ".join(n.op_type for n in model.graph.node))
    print("opsets:", sorted((o.domain, o.version) for o in model.opset_import))
    x = np.random.default_rng(1).standard_normal((4, 8, 40)).astype(np.float32)
    qdq, nbits = run(work / "qdq.onnx", x), run(work / "nbits.onnx", x)
    print("max |nbits - qdq| / max |qdq| below 1e-5:",
          float(np.abs(nbits - qdq).max() / np.abs(qdq).max()) < 1e-5)


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](Path(sys.argv[2]))
