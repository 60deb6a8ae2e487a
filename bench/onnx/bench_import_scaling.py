#!/usr/bin/env python3
"""ONNX import cost per node as graphs grow, against Python's onnx.load.

    bench_import_scaling.py BUILD_DIR [OTHER_BUILD_DIR]

Writes chains of MatMul -> Add -> Sigmoid -> Mul blocks (every node maps
to a layer op or fuses: dense, bias, swish) of 10^3, 10^4 and 10^5 nodes
with tiny weights, so that the time is per-node work (translation, shape
inference, the ONNX patterns, fusions), not weight bytes. For each size it
prints the wall time of `qdq-opt model.onnx -o out.mlirbc --emit-bytecode`
per node, its ratio to `onnx.load` of the same file in this process, and
peak RSS. With OTHER_BUILD_DIR, the same for that build's qdq-opt (to
compare two versions side by side). Best of three runs. Figures only.
"""

import os
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_onnx import measure  # noqa: E402


def chain(nodes):
    graph_nodes, prev = [], "x"
    for i in range(nodes // 4):
        graph_nodes += [
            helper.make_node("MatMul", [prev, "w"], [f"m{i}"], name=f"mm{i}"),
            helper.make_node("Add", [f"m{i}", "b"], [f"a{i}"], name=f"add{i}"),
            helper.make_node("Sigmoid", [f"a{i}"], [f"s{i}"], name=f"sig{i}"),
            helper.make_node("Mul", [f"a{i}", f"s{i}"], [f"y{i}"],
                             name=f"mul{i}"),
        ]
        prev = f"y{i}"
    inits = [numpy_helper.from_array(np.ones((8, 8), np.float32), "w"),
             numpy_helper.from_array(np.ones(8, np.float32), "b")]
    graph = helper.make_graph(
        graph_nodes, "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 8])],
        inits)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 13)])


def main():
    builds = [os.path.abspath(b) for b in sys.argv[1:3]]
    work = tempfile.mkdtemp()
    print("%8s %-10s %12s %14s %10s" %
          ("nodes", "build", "us / node", "/ onnx.load", "RSS MiB"))
    for nodes in (1000, 10000, 100000):
        path = os.path.join(work, "chain.onnx")
        onnx.save(chain(nodes), path)
        load = min(time_load(path) for _ in range(3))
        for i, build in enumerate(builds):
            out = os.path.join(work, "out.mlirbc")
            best = min((measure([os.path.join(build, "bin", "qdq-opt"),
                                 path, "-o", out, "--emit-bytecode"])
                        for _ in range(3)), key=lambda r: r[0])
            print("%8d %-10s %12.2f %14.2f %10.0f" %
                  (nodes, "build%d" % (i + 1) if len(builds) > 1 else "build",
                   best[0] * 1e6 / nodes, best[0] / load, best[1] / 2**20))


def time_load(path):
    start = time.perf_counter()
    onnx.load(path)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
