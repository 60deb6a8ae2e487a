#!/usr/bin/env python3
"""Runs two ONNX models in ONNX Runtime on the same random input and prints
the largest difference relative to the first's output range.

    compare_models.py REFERENCE.onnx CANDIDATE.onnx SHAPE

The candidate (an export) must pass the ONNX checker's full check first.
Graph rewrites are off in both sessions, so each computes its nodes as
written.
"""
import sys

import numpy as np
import onnx
import onnxruntime as ort


def run(path, x):
    options = ort.SessionOptions()
    options.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    session = ort.InferenceSession(path, options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: x})[0]


def main():
    reference, candidate, shape = sys.argv[1:4]
    onnx.checker.check_model(onnx.load(candidate), full_check=True)
    shape = tuple(int(d) for d in shape.split(","))
    x = np.random.RandomState(3).standard_normal(shape).astype(np.float32)
    expected, actual = run(reference, x), run(candidate, x)
    assert expected.shape == actual.shape, (expected.shape, actual.shape)
    diff = np.abs(expected - actual).max() / np.abs(expected).max()
    print(f"max |diff| / max |ref|: {diff:.2e}")


if __name__ == "__main__":
    main()
