#!/usr/bin/env python3
"""Checks an equalized model against the model it came from, in ONNX
Runtime:

    equalize_check.py FLOAT.onnx EQUALIZED.onnx DATA.npy
    equalize_check.py --gain DB FLOAT.onnx PLAIN.onnx EQUALIZED.onnx DATA.npy

- both pass ONNX's full checker, and compute the same outputs (to float
  rounding);
- in every pair of convolutions of EQUALIZED.onnx where one's output
  feeds the other (through Relu/Clip/Min), output channel i of the first
  and input channel i of the second have the same largest magnitude.

With --gain, PLAIN.onnx and EQUALIZED.onnx are QDQ models of FLOAT.onnx,
quantized without and with equalization: the second's output SQNR against
FLOAT.onnx must exceed the first's by DB.
"""

import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def run(path, data):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(path, options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: data})[0]


def sqnr_db(reference, got):
    noise = float(np.sum((reference - got) ** 2))
    return 10 * np.log10(float(np.sum(reference ** 2)) / max(noise, 1e-30))


if sys.argv[1] == "--gain":
    gain = float(sys.argv[2])
    float_path, plain_path, equalized_path, data_path = sys.argv[3:7]
    data = np.load(data_path)
    for path in (plain_path, equalized_path):
        onnx.checker.check_model(onnx.load(path), full_check=True)
    reference = run(float_path, data)
    plain = sqnr_db(reference, run(plain_path, data))
    equalized = sqnr_db(reference, run(equalized_path, data))
    assert equalized > plain + gain, \
        f"equalized {equalized:.2f} dB is not {gain} dB above {plain:.2f} dB"
    print(f"per-tensor weights: equalization gains over {gain:g} dB "
          f"({plain:.2f} -> {equalized:.2f} dB)")
    sys.exit(0)

float_path, equalized_path, data_path = sys.argv[1:4]
for path in (float_path, equalized_path):
    onnx.checker.check_model(onnx.load(path), full_check=True)
data = np.load(data_path)
reference, equalized = run(float_path, data), run(equalized_path, data)
error = float(np.max(np.abs(reference - equalized)))
scale = float(np.max(np.abs(reference)))
assert error <= 1e-4 * scale, f"outputs differ by {error} (scale {scale})"

model = onnx.load(equalized_path)
weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
producer = {out: node for node in model.graph.node for out in node.output}
pairs = 0
for node in model.graph.node:
    if node.op_type != "Conv":
        continue
    source = producer.get(node.input[0])
    while source is not None and source.op_type in ("Relu", "Clip", "Min"):
        source = producer.get(source.input[0])
    if source is None or source.op_type != "Conv":
        continue
    first, second = weights[source.input[1]], weights[node.input[1]]
    out_ranges = np.abs(first).max(axis=(1, 2, 3))
    group = {a.name: a.i for a in node.attribute}.get("group", 1)
    # A depthwise filter is its channel's input and output at once.
    in_axis = (1, 2, 3) if group > 1 else (0, 2, 3)
    in_ranges = np.abs(second).max(axis=in_axis)
    ratio = out_ranges / in_ranges
    assert np.all(np.abs(ratio - 1) < 0.02), \
        f"{source.name} -> {node.name}: range ratios {ratio}"
    pairs += 1
print(f"equalized: same outputs, {pairs} pairs with equal channel ranges "
      f"(largest difference {error / scale:.1e} of the output range)")
