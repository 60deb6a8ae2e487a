#!/usr/bin/env python3
"""Runs one ONNX model in qdq-run and in onnxruntime-node on the same random
input and prints the largest difference relative to the output's range.

    compare_with_ort.py QDQ_RUN RUN_ONNX_MJS MODEL.onnx N,C,H,W WORKDIR
"""
import subprocess
import sys
from pathlib import Path

import numpy as np


def main():
    qdq_run, runner, model, shape, work = sys.argv[1:6]
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    shape = tuple(int(d) for d in shape.split(","))
    x = np.random.RandomState(5).rand(*shape).astype(np.float32)
    np.save(work / "x.npy", x)
    x.tofile(work / "x.f32")
    subprocess.run([qdq_run, model, "--input", str(work / "x.npy"), "--output",
                    str(work / "qdq.npy")], check=True)
    subprocess.run(["node", runner, model, str(work / "x.f32"), str(work / "ort.f32"),
                    "x".join(map(str, shape)), "1", "--no-optimize"],
                   check=True, capture_output=True)
    ours = np.load(work / "qdq.npy").reshape(-1)
    ort = np.fromfile(work / "ort.f32", np.float32)
    scale = float(np.abs(ort).max())
    print(f"elements: {ours.size} ort: {ort.size}")
    print(f"max |diff| / max |ort|: {float(np.abs(ours - ort).max()) / scale:.2e}")


if __name__ == "__main__":
    main()
