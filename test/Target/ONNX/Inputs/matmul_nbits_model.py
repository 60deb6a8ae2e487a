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
    matmul_nbits_model.py ort DIR     writes DIR/ort.onnx, m.onnx's MatMul
        as ONNX Runtime's own int4 quantizer writes it (symmetric blocks of
        16: negative scales), and DIR/x.npy
    matmul_nbits_model.py compare DIR MODEL   compares DIR/y.npy (qdq-run's
        output for MODEL on x.npy) with ONNX Runtime's, rewrites off
    matmul_nbits_model.py zero-points DIR     writes DIR/zp.onnx, ort.onnx
        with explicit zero points (a form import does not take)
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


def ort_quantized(work):
    from onnxruntime.quantization.matmul_nbits_quantizer import (
        DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer)
    quantizer = MatMulNBitsQuantizer(
        onnx.load(work / "m.onnx"),
        algo_config=DefaultWeightOnlyQuantConfig(block_size=16,
                                                 is_symmetric=True))
    quantizer.process()
    onnx.save(quantizer.model.model, work / "ort.onnx")
    np.save(work / "x.npy", np.random.default_rng(1).standard_normal(
        (4, 8, 40)).astype(np.float32))


def zero_points(work):
    model = onnx.load(work / "ort.onnx")
    node = next(n for n in model.graph.node if n.op_type == "MatMulNBits")
    n = next(a.i for a in node.attribute if a.name == "N")
    k = next(a.i for a in node.attribute if a.name == "K")
    blocks = -(-k // 16)
    # Zero points packed two a byte ([N, ceil(blocks / 2)]), all 8.
    zp = np.full((n, -(-blocks // 2)), 0x88, np.uint8)
    model.graph.initializer.append(numpy_helper.from_array(zp, "zp"))
    assert list(node.input)[1:] == ["w1_Q4", "w1_scales"], node.input
    node.input.append("zp")
    onnx.save(model, work / "zp.onnx")


def compare(work, model):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(work / model), options,
                                   providers=["CPUExecutionProvider"])
    want = session.run(None, {"x": np.load(work / "x.npy")})[0]
    got = np.load(work / "y.npy")
    ops = sorted({n.op_type for n in onnx.load(work / model).graph.node})
    print(model, "ops:", " ".join(ops))
    print("qdq-run equal to ONNX Runtime within 1e-5:",
          float(np.abs(got - want).max() / np.abs(want).max()) < 1e-5)


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        compare(Path(sys.argv[2]), sys.argv[3])
    else:
        {"make": make, "check": check, "ort": ort_quantized,
         "zero-points": zero_points}[sys.argv[1]](
            Path(sys.argv[2]))
