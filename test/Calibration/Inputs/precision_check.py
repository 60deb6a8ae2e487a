#!/usr/bin/env python3
"""Checks qdq-sensitivity and qdq-auto-precision against ONNX Runtime.

    precision_check.py sensitivity QDQ.onnx FLOAT.onnx DATA.npy TABLE.json
    precision_check.py auto MODEL.onnx FLOAT.onnx DATA.npy REPORT.txt TARGET

`sensitivity`: QDQ.onnx is the whole network quantized, exported with float
weights (QuantizeLinear on them too); for every row of the table, the four
configurations are rebuilt here by bypassing Q/DQ pairs in the ONNX graph
and run in ONNX Runtime, and their output SQNR against FLOAT.onnx must
match the table's to 0.05 dB (ORT runs without graph rewrites, which
would fuse integer kernels that requantize in their own way). `auto`: MODEL.onnx, the automatic choice, passes the full
checker, and its SQNR in ORT matches the report's and meets TARGET.
"""

import json
import sys

import numpy as np
import onnx
import onnxruntime as ort

TOLERANCE_DB = 0.05


def sqnr(reference, actual):
    noise = float(((reference - actual) ** 2).sum())
    if noise == 0:
        return float("inf")
    return 10 * np.log10(float((reference ** 2).sum()) / noise)


def run(model, data):
    # Without graph rewrites: ORT's fused integer kernels (QLinearConv)
    # requantize differently from the Q/DQ semantics both sides compute.
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: data})[0]


def keep_only(model, quantized):
    """`model` with every QuantizeLinear -> DequantizeLinear pair whose
    input is not in `quantized` bypassed."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    producers = {out: node for node in graph.node for out in node.output}
    bypass = {}
    for node in graph.node:
        if node.op_type != "DequantizeLinear":
            continue
        quantize = producers.get(node.input[0])
        if quantize is None or quantize.op_type != "QuantizeLinear":
            continue
        if quantize.input[0] not in quantized:
            bypass[node.output[0]] = quantize.input[0]
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name in bypass:
                node.input[i] = bypass[name]
    return model


def site_names(model):
    return {n.input[0] for n in model.graph.node
            if n.op_type == "QuantizeLinear"}


def check_sensitivity(qdq_path, float_path, data_path, table_path):
    model = onnx.load(qdq_path)
    onnx.checker.check_model(model, full_check=True)
    data = np.load(data_path)
    reference = run(onnx.load(float_path), data)
    table = json.load(open(table_path))
    every = site_names(model)
    whole = sqnr(reference, run(model, data))
    assert abs(whole - table["sqnr_db"]) < TOLERANCE_DB, (whole, table)
    checked = 0
    for row in table["layers"]:
        for key, subset, only in [
                ("weight_only_sqnr_db", row["weights"], True),
                ("inputs_only_sqnr_db", row["inputs"], True),
                ("weight_float_sqnr_db", row["weights"], False),
                ("inputs_float_sqnr_db", row["inputs"], False)]:
            if not subset:
                assert row[key] is None, (row, key)
                continue
            assert set(subset) <= every, (subset, every)
            kept = set(subset) if only else every - set(subset)
            measured = sqnr(reference, run(keep_only(model, kept), data))
            assert abs(measured - row[key]) < TOLERANCE_DB, (
                row["layer"], key, measured, row[key])
            checked += 1
    print("sensitivity: %d figures match ONNX Runtime" % checked)


def check_auto(model_path, float_path, data_path, report_path, target):
    model = onnx.load(model_path)
    onnx.checker.check_model(model, full_check=True)
    data = np.load(data_path)
    measured = sqnr(run(onnx.load(float_path), data), run(model, data))
    report = open(report_path).read()
    chosen = float(report.split("chosen: SQNR ")[1].split(" dB")[0])
    assert abs(measured - chosen) < TOLERANCE_DB, (measured, chosen)
    assert measured >= float(target) - TOLERANCE_DB, (measured, target)
    print("auto: ORT SQNR matches the report and meets the target")


if __name__ == "__main__":
    {"sensitivity": check_sensitivity, "auto": check_auto}[sys.argv[1]](
        *sys.argv[2:])
