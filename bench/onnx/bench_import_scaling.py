#!/usr/bin/env python3
"""Cost per node as graphs grow, against Python's onnx package.

    bench_import_scaling.py BUILD_DIR [OTHER_BUILD_DIR]

Three tables, best of three runs each, figures only:

1. Import. Chains of MatMul -> Add -> Sigmoid -> Mul blocks (every node maps
   to a layer op or fuses: dense, bias, swish) of 10^3, 10^4 and 10^5 nodes
   with tiny weights, so that the time is per-node work (translation, shape
   inference, checks, the ONNX patterns, fusions), not weight bytes:
   `qdq-opt model.onnx -o out.mlirbc --emit-bytecode` per node, its ratio
   to `onnx.load` of the same file, and peak RSS.
2. The whole path a user runs, `qdq-opt model.onnx --insert-qdq=resnet-v1
   -o out.onnx` (import, insertion, export), on the shapes that huge or
   hostile inputs take (issue 18): a chain of Relu nodes up to 10^5, and a
   residual network of Conv -> Relu -> Add blocks up to 10^4 layers, against
   `onnx.load` + `onnx.save` of the same file.

3. Export at another opset (issue 44): `qdq-opt model.onnx --onnx-opset=21
   -o out.onnx` on an opset-17 chain of ReduceMean (axes an attribute, an
   input from 18) and Sin nodes kept as they are, which ONNX's version
   converter brings to 21, up to 10^5 nodes, against `onnx.load` +
   `onnx.version_converter.convert_version` + `onnx.save`.

With OTHER_BUILD_DIR, the same for that build's qdq-opt, side by side.
Models are written and the Python baselines timed in child processes: the
peak RSS that wait4 reports for a tool includes its parent's at the fork,
so this process never holds a model.
"""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_onnx import measure  # noqa: E402

WRITE = """
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

kind, size, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])
nodes, inits, prev = [], [], "x"
if kind == "dense-swish":
    for i in range(size // 4):
        nodes += [
            helper.make_node("MatMul", [prev, "w"], [f"m{i}"], name=f"mm{i}"),
            helper.make_node("Add", [f"m{i}", "b"], [f"a{i}"], name=f"add{i}"),
            helper.make_node("Sigmoid", [f"a{i}"], [f"s{i}"], name=f"sig{i}"),
            helper.make_node("Mul", [f"a{i}", f"s{i}"], [f"y{i}"],
                             name=f"mul{i}")]
        prev = f"y{i}"
    inits = [numpy_helper.from_array(np.ones((8, 8), np.float32), "w"),
             numpy_helper.from_array(np.ones(8, np.float32), "b")]
    shape = [1, 8]
elif kind == "mean-sin":
    for i in range(size):
        if i % 2 == 0:
            nodes.append(helper.make_node("ReduceMean", [prev], [f"t{i}"],
                                          name=f"mean{i}", axes=[-1],
                                          keepdims=1))
        else:
            nodes.append(helper.make_node("Sin", [prev], [f"t{i}"],
                                          name=f"sin{i}"))
        prev = f"t{i}"
    shape = [1, 8]
elif kind == "relu-chain":
    for i in range(size):
        nodes.append(helper.make_node("Relu", [prev], [f"t{i}"],
                                      name=f"relu{i}"))
        prev = f"t{i}"
    shape = [1, 8]
else:  # residual: size layers of Conv -> Relu -> Add
    for i in range(size):
        nodes += [
            helper.make_node("Conv", [prev, "w"], [f"c{i}"], name=f"conv{i}",
                             pads=[1, 1, 1, 1]),
            helper.make_node("Relu", [f"c{i}"], [f"r{i}"], name=f"relu{i}"),
            helper.make_node("Add", [f"r{i}", prev], [f"a{i}"],
                             name=f"add{i}")]
        prev = f"a{i}"
    inits = [numpy_helper.from_array(np.ones((4, 4, 3, 3), np.float32), "w")]
    shape = [1, 4, 4, 4]
out_shape = [1, 1] if kind == "mean-sin" else shape
graph = helper.make_graph(
    nodes, kind, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
    [helper.make_tensor_value_info(prev, TensorProto.FLOAT, out_shape)], inits)
opset = 17 if kind == "mean-sin" else 13
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
model.ir_version = 8
onnx.save(model, path)
print(len(nodes))
"""

# Prints the best of three times of onnx.load (and onnx.save, with a second
# path) of a file.
PYTHON_BASELINE = """
import sys, time, onnx
best = None
for _ in range(3):
    start = time.perf_counter()
    model = onnx.load(sys.argv[1])
    if len(sys.argv) > 2:
        onnx.save(model, sys.argv[2])
    elapsed = time.perf_counter() - start
    best = elapsed if best is None else min(best, elapsed)
print(best)
"""


# The same with ONNX's version converter to opset 21 between.
PYTHON_CONVERT = """
import sys, time, onnx, onnx.version_converter
best = None
for _ in range(3):
    start = time.perf_counter()
    model = onnx.version_converter.convert_version(onnx.load(sys.argv[1]), 21)
    onnx.save(model, sys.argv[2])
    elapsed = time.perf_counter() - start
    best = elapsed if best is None else min(best, elapsed)
print(best)
"""


def python(script, *args):
    return subprocess.run([sys.executable, "-c", script, *args], check=True,
                          capture_output=True, text=True).stdout.strip()


def table(title, graphs, tool_args, save_baseline, builds, work,
          baseline_script=PYTHON_BASELINE):
    print(title)
    print("%-22s %-7s %8s %10s %14s %8s" %
          ("graph", "build", "nodes", "us / node", "/ python", "RSS MiB"))
    path = os.path.join(work, "graph.onnx")
    for kind, size, label in graphs:
        nodes = int(python(WRITE, kind, str(size), path))
        baseline = float(python(baseline_script, path,
                                *([os.path.join(work, "python.onnx")]
                                  if save_baseline else [])))
        for i, build in enumerate(builds):
            argv = [os.path.join(build, "bin", "qdq-opt"), path,
                    *tool_args(work)]
            seconds, rss = min((measure(argv) for _ in range(3)),
                               key=lambda r: r[0])
            print("%-22s %-7s %8d %10.2f %14.2f %8.0f" %
                  (label, "build%d" % (i + 1) if len(builds) > 1 else "build",
                   nodes, seconds * 1e6 / nodes, seconds / baseline,
                   rss / 2**20))
    print()


def main():
    builds = [os.path.abspath(b) for b in sys.argv[1:3]]
    work = tempfile.mkdtemp()
    table("import (/ python: onnx.load)",
          [("dense-swish", n, "dense+swish %d" % n)
           for n in (1000, 10000, 100000)],
          lambda w: ["-o", os.path.join(w, "out.mlirbc"), "--emit-bytecode"],
          False, builds, work)
    table("--insert-qdq=resnet-v1 -o out.onnx (/ python: onnx.load + save)",
          [("relu-chain", n, "relu chain %d" % n)
           for n in (1000, 10000, 100000)] +
          [("residual", n, "residual %d layers" % n)
           for n in (100, 1000, 10000)],
          lambda w: ["--insert-qdq=resnet-v1", "-o",
                     os.path.join(w, "out.onnx")],
          True, builds, work)
    table("--onnx-opset=21 -o out.onnx from opset 17 (/ python: load + "
          "convert_version + save)",
          [("mean-sin", n, "mean/sin chain %d" % n)
           for n in (1000, 10000, 100000)],
          lambda w: ["--onnx-opset=21", "-o", os.path.join(w, "out.onnx")],
          True, builds, work, PYTHON_CONVERT)


if __name__ == "__main__":
    main()
