#!/usr/bin/env python3
"""Max calibration computes each observed tensor's range in the compiled
model (quant_qdq.tensor_range: minima and maxima per row, whatever the
model's opset). Builds a Conv -> Relu -> MatMul model at `opset`,
calibrates it with qdq-opt, and checks every saved range against the
tensor ONNX Runtime computes:

    ranges_vs_ort.py QDQ_OPT WORKDIR OPSET
"""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

qdq_opt, work, opset = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(opset)
graph = h.make_graph(
    [h.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
     h.make_node("Relu", ["c"], ["r"]),
     h.make_node("MatMul", ["r", "m"], ["y"])],
    "g", [h.make_tensor_value_info("x", T.FLOAT, ["N", 3, 8, 8])],
    [h.make_tensor_value_info("y", T.FLOAT, None)],
    [numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w"),
     numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b"),
     numpy_helper.from_array(rng.standard_normal((8, 5)).astype(np.float32), "m")])
model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
model.ir_version = 8
onnx.save(model, work / "m.onnx")
x = rng.standard_normal((6, 3, 8, 8)).astype(np.float32)
np.save(work / "x.npy", x)
# Two batches (4 + 2): the range spans both.
subprocess.run([qdq_opt, str(work / "m.onnx"), "--insert-qdq",
                f"--calibrate=data={work / 'x.npy'} method=max batch-size=4 "
                f"save={work / 'ranges.json'}", "-o", str(work / "q.onnx")],
               check=True)
ranges = json.load(open(work / "ranges.json"))["tensors"]

model.graph.output.append(h.make_tensor_value_info("r", T.FLOAT, None))
session = ort.InferenceSession(model.SerializeToString(),
                               providers=["CPUExecutionProvider"])
relu = session.run(["r"], {"x": x})[0]
ok = True
for name, tensor in [("x", x), ("Relu_output_0", relu)]:
    got = ranges[name]
    want = (float(tensor.min()), float(tensor.max()))
    close = np.allclose([got["min"], got["max"]], want, rtol=1e-5, atol=1e-6)
    ok &= close
    print(f"{name}: {'ok' if close else 'FAIL'} [{got['min']}, {got['max']}] "
          f"against [{want[0]}, {want[1]}]")
print("all ranges match" if ok else "ranges differ")
