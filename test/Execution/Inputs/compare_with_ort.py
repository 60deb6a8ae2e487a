#!/usr/bin/env python3
"""Runs one ONNX model in qdq-run and in ONNX Runtime on the same random
input and prints the largest difference relative to the output's range.

    compare_with_ort.py QDQ_RUN MODEL.onnx N,C,H,W WORKDIR [-- QDQ_RUN_ARGS...]

ONNX Runtime runs with its graph rewrites off, so that a QDQ model computes
its QuantizeLinear/DequantizeLinear as written (float arithmetic) rather
than through fused integer kernels: the reference for bit-level checks.
"""
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort


def main():
    qdq_run, model, shape, work = sys.argv[1:5]
    extra = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    shape = tuple(int(d) for d in shape.split(","))
    x = np.random.RandomState(5).rand(*shape).astype(np.float32)
    np.save(work / "x.npy", x)
    subprocess.run([qdq_run, model, "--input", str(work / "x.npy"), "--output",
                    str(work / "qdq.npy")] + extra, check=True)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    reference = session.run(None, {session.get_inputs()[0].name: x})[0].reshape(-1)
    ours = np.load(work / "qdq.npy").reshape(-1)
    scale = float(np.abs(reference).max())
    print(f"elements: {ours.size} ort: {reference.size}")
    print(f"max |diff| / max |ort|: {float(np.abs(ours - reference).max()) / scale:.2e}")


if __name__ == "__main__":
    main()
