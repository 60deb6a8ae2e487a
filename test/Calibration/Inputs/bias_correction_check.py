#!/usr/bin/env python3
"""Recomputes qdq-bias-correction's biases with ONNX Runtime:

    bias_correction_check.py FLOAT.onnx PLAIN.qdq.onnx CORRECTED.qdq.onnx DATA.npy

For each Conv and Gemm of PLAIN (quantized, int8 weights), the rounding
error of its weight (its DequantizeLinear's values minus FLOAT's weight) is
applied to the layer's float input (FLOAT run with that tensor as an
output), the result averaged per output channel over DATA, and subtracted
from the float bias; CORRECTED's bias must equal it, and CORRECTED passes
ONNX's full checker.
"""

import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper


def run(model, feeds, outputs=None):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(outputs, feeds)


def float_input(model, name, data):
    """The float value of tensor `name` on `data`."""
    probe = onnx.ModelProto.FromString(model.SerializeToString())
    if name == probe.graph.input[0].name:
        return data
    probe.graph.output.add().name = name
    return run(probe, {probe.graph.input[0].name: data}, [name])[0]


def dequantized(model, name):
    """The values DequantizeLinear gives output `name` in `model`."""
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    node = next(n for n in model.graph.node if n.output[0] == name)
    q = inits[node.input[0]].astype(np.float64)
    scale = inits[node.input[1]].astype(np.float64)
    axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
    shape = [1] * q.ndim
    shape[axis] = -1
    return (q * scale.reshape(shape)).astype(np.float32)


def main(float_path, plain_path, corrected_path, data_path):
    fmodel, plain = onnx.load(float_path), onnx.load(plain_path)
    corrected = onnx.load(corrected_path)
    onnx.checker.check_model(corrected, full_check=True)
    data = np.load(data_path)
    weights = {i.name: numpy_helper.to_array(i) for i in fmodel.graph.initializer}
    new = {i.name: numpy_helper.to_array(i) for i in corrected.graph.initializer}
    fnodes = {n.name: n for n in fmodel.graph.node}
    checked = 0
    for node in plain.graph.node:
        if node.op_type not in ("Conv", "Gemm"):
            continue
        original = fnodes[node.name]
        error = dequantized(plain, node.input[1]) - weights[original.input[1]]
        x = float_input(fmodel, original.input[0], data)
        probe = helper.make_node(node.op_type, ["x", "e"], ["y"],
                                 **{a.name: helper.get_attribute_value(a)
                                    for a in node.attribute})
        graph = helper.make_graph(
            [probe], "probe",
            [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, None)],
            [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
            [numpy_helper.from_array(error, "e")])
        model = helper.make_model(graph, opset_imports=[
            helper.make_opsetid("", 13)])
        model.ir_version = 8
        shift = run(model, {"x": x})[0]
        axes = tuple(d for d in range(shift.ndim) if d != 1)
        # A layer without a bias gets one, named after the layer.
        bias = original.input[2] if len(original.input) > 2 else None
        base = weights[bias] if bias else 0.0
        expected = base - shift.mean(axis=axes)
        prefix = (bias or node.name + "_bias") + "_corrected"
        (name,) = [n for n in new if n.startswith(prefix)]
        np.testing.assert_allclose(new[name], expected, rtol=1e-4, atol=1e-6)
        checked += 1
    print("bias correction: %d layers match ONNX Runtime" % checked)


if __name__ == "__main__":
    main(*sys.argv[1:])
