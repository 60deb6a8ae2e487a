#!/usr/bin/env python3
"""What ONNX Runtime's CPU provider makes of a QDQ model, for FileCheck.

    check_ort_kernels.py FLOAT.onnx QDQ.onnx --shape 1x3x64x64

Runs the full ONNX checker on QDQ.onnx, saves the graph ORT's optimizer
produces from it (optimized_model_filepath) and prints:

  convs: N qlinear: M float: F
      N Conv nodes in FLOAT.onnx; M QLinearConv and F float convolutions
      (Conv, FusedConv, NCHWc Conv) in ORT's optimized graph.
  adds: N qlinear: M
      Add nodes between activations in FLOAT.onnx; QLinearAdd in ORT's graph.
  gemms: N integer: M
      Gemm nodes in FLOAT.onnx; QGemm in ORT's graph.
  float activations and products: R
      Relu, Clip, Sigmoid, Mul and QuickGelu (ORT's fused swish) nodes in
      ORT's graph (a relu or clip that a quantize follows vanishes into it
      when its zero point is the storage minimum; a quantized swish runs as
      QLinearSigmoid and QLinearMul).
  weights dequantized per run: K
      DequantizeLinear nodes ORT kept that read an initializer.
  same scale around pass-through: yes|no
      every DequantizeLinear -> MaxPool/Reshape/Flatten -> QuantizeLinear
      of the QDQ file has one scale and zero point on both sides.
  sqnr: S
      output SQNR in dB of QDQ.onnx (as ORT runs it) against FLOAT.onnx, on
      four random inputs.
"""

import argparse
import collections
import os
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

FLOAT_CONVS = ("Conv", "FusedConv")
FLOAT_ELEMENTWISE = ("Relu", "Clip", "Sigmoid", "Mul", "QuickGelu")


def optimized(path):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    with tempfile.TemporaryDirectory() as folder:
        options.optimized_model_filepath = os.path.join(folder, "opt.onnx")
        ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        return onnx.load(options.optimized_model_filepath)


def same_scales_around_pass_through(model):
    graph = model.graph
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    producer = {o: n for n in graph.node for o in n.output}
    readers = collections.defaultdict(list)
    for node in graph.node:
        for name in node.input:
            readers[name].append(node)
    for node in graph.node:
        if node.op_type not in ("MaxPool", "Reshape", "Flatten"):
            continue
        dq = producer.get(node.input[0])
        after = [r for r in readers[node.output[0]]
                 if r.op_type == "QuantizeLinear"]
        if dq is None or dq.op_type != "DequantizeLinear" or not after:
            continue
        for q in after:
            for i in (1, 2):
                if not np.array_equal(inits[dq.input[i]], inits[q.input[i]]):
                    return False
    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("float_model")
    parser.add_argument("qdq_model")
    parser.add_argument("--shape", required=True)
    args = parser.parse_args()
    shape = [int(d) for d in args.shape.split("x")]

    qdq = onnx.load(args.qdq_model)
    onnx.checker.check_model(qdq, full_check=True)
    original = onnx.load(args.float_model).graph
    inits = {t.name for t in original.initializer}
    counts = collections.Counter(n.op_type for n in original.node)
    adds = sum(n.op_type == "Add" and not any(i in inits for i in n.input)
               for n in original.node)

    ran = optimized(args.qdq_model).graph
    kinds = collections.Counter(n.op_type for n in ran.node)
    kept = {t.name for t in ran.initializer}
    dequantized_weights = sum(n.op_type == "DequantizeLinear"
                              and n.input[0] in kept for n in ran.node)
    print(f"convs: {counts['Conv']} qlinear: {kinds['QLinearConv']} "
          f"float: {sum(kinds[k] for k in FLOAT_CONVS)}")
    print(f"adds: {adds} qlinear: {kinds['QLinearAdd']}")
    print(f"gemms: {counts['Gemm']} integer: {kinds['QGemm']}")
    floats = sum(kinds[k] for k in FLOAT_ELEMENTWISE)
    print(f"float activations and products: {floats}")
    print(f"weights dequantized per run: {dequantized_weights}")
    print("same scale around pass-through: "
          + ("yes" if same_scales_around_pass_through(qdq) else "no"))

    rng = np.random.RandomState(1)
    reference = ort.InferenceSession(args.float_model,
                                     providers=["CPUExecutionProvider"])
    session = ort.InferenceSession(args.qdq_model,
                                   providers=["CPUExecutionProvider"])
    name = reference.get_inputs()[0].name
    signal = noise = 0.0
    for _ in range(4):
        x = rng.rand(*shape).astype(np.float32)
        want = reference.run(None, {name: x})[0].astype(np.float64)
        got = session.run(None, {name: x})[0].astype(np.float64)
        signal += float((want ** 2).sum())
        noise += float(((want - got) ** 2).sum())
    print(f"sqnr: {10 * np.log10(signal / noise):.1f}")


if __name__ == "__main__":
    main()
