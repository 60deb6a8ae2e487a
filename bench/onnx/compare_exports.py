#!/usr/bin/env python3
"""Checks that two builds of quant-qdq export the same models: the same
nodes in the same order with the same attributes, reading the same tensors
(initializers compared by value, other tensors by the node that produces
them), and the same outputs under ONNX Runtime. Names may differ; they are
reported, not compared.

    compare_exports.py OLD_BUILD NEW_BUILD [WORK_DIR]

Each torchvision model (random weights, 64x64) is exported by torch, then
run through `qdq-opt --insert-qdq=<case>` and a plain round trip by both
builds. Initializer names new in NEW_BUILD are counted.
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import models, ort  # noqa: E402


def describe(path):
    """The graph as a list of nodes in a name-free form."""
    g = onnx.load(str(path)).graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    inputs = {i.name: k for k, i in enumerate(g.input)}
    producer = {}
    nodes = []
    for n, node in enumerate(g.node):
        refs = []
        for name in node.input:
            if name == "":
                refs.append(("omitted",))
            elif name in inits:
                a = inits[name]
                refs.append(("init", a.dtype.str, a.shape, a.tobytes()))
            elif name in inputs:
                refs.append(("input", inputs[name]))
            else:
                refs.append(("node",) + producer[name])
        attrs = sorted((a.name, str(onnx.helper.get_attribute_value(a)))
                       for a in node.attribute)
        nodes.append((node.op_type, node.domain, tuple(refs), tuple(attrs)))
        for k, out in enumerate(node.output):
            producer[out] = (n, k)
    return nodes, [n.name for n in g.node], set(inits)


def compare(old, new, x):
    a, a_names, a_inits = describe(old)
    b, b_names, b_inits = describe(new)
    problems = []
    if len(a) != len(b):
        problems.append(f"{len(a)} nodes vs {len(b)}")
    for i, (na, nb) in enumerate(zip(a, b)):
        if na != nb:
            problems.append(f"node {i}: {na[0]} {a_names[i]} differs from "
                            f"{nb[0]} {b_names[i]}")
            break
    ya = ort.outputs(old, [x], optimize=False)
    yb = ort.outputs(new, [x], optimize=False)
    same = all(np.array_equal(p, q) for p, q in zip(ya, yb))
    if not same:
        problems.append("ONNX Runtime outputs differ")
    renamed = sum(p != q for p, q in zip(a_names, b_names))
    return problems, renamed, len(b_inits - a_inits), len(a)


def main():
    old, new = Path(sys.argv[1]), Path(sys.argv[2])
    work = Path(sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp())
    failed = False
    for name in models.TORCHVISION_CNNS:
        m = models.torchvision_cnn(name, work, size=64, calib=1, evaluate=1)
        x = m.evaluation[0]
        for label, args in (("round trip", []),
                            (f"--insert-qdq={m.case}",
                             [f"--insert-qdq={m.case}"])):
            outs = []
            for build, tag in ((old, "old"), (new, "new")):
                out = work / f"{name}.{tag}.{len(args)}.onnx"
                subprocess.run([str(build / "bin" / "qdq-opt"), str(m.onnx),
                                *args, "-o", str(out)], check=True,
                               stderr=subprocess.DEVNULL)
                outs.append(out)
            problems, renamed, new_inits, count = compare(*outs, x)
            failed |= bool(problems)
            print(f"{name:18s} {label:26s} {count:4d} nodes, "
                  f"{renamed:3d} renamed, {new_inits:3d} initializer "
                  f"names new: "
                  + ("same" if not problems else "; ".join(problems)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
