#!/usr/bin/env python3
"""qdq-run against ONNX Runtime on transformers: ViT-B/16 at 224 and the
BERT-base-shaped encoder (bench/common/models.py), batch 1, FP32, and the
largest difference between the two outputs relative to the output range.

Both run in this script on this machine, with the same threads: every core
(qdq-run's OpenMP default, ONNX Runtime's intra-op default), ONNX Runtime
with its graph optimizations. qdq-run's time is per run after a warm-up
run.

usage: bench/execution/transformers.py [build-dir] [layers]
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
from common import models, ort  # noqa: E402

build = Path(sys.argv[1]) if len(sys.argv) > 1 else here.parent.parent / "build"
layers = int(sys.argv[2]) if len(sys.argv) > 2 else 12


def main():
    work = Path(tempfile.mkdtemp(prefix="qdq-transformers-"))
    print(f"{os.cpu_count()} threads")
    print("model       ms qdq-run   ms ORT   ORT/qdq-run   max|diff|/range")
    for model in [models.vit_b_16(work, calib=1, evaluate=1),
                  models.bert_like(work, layers=layers, calib=1, evaluate=1)]:
        x = model.evaluation[0]
        np.save(work / "x.npy", x)
        run = subprocess.run([str(build / "bin" / "qdq-run"), str(model.onnx),
                              "--input", str(work / "x.npy"), "--output",
                              str(work / "y.npy"), "--repeat", "1"],
                             check=True, capture_output=True, text=True).stderr
        qdq_ms = float(run.split("qdq-run: ")[1].split(" ms")[0])
        ort_ms = ort.latency_ms(model.onnx, x)
        ref = ort.outputs(model.onnx, [x])[0]
        got = np.load(work / "y.npy")
        err = float(np.abs(ref - got).max() / (ref.max() - ref.min()))
        print(f"{model.name:<10} {qdq_ms:10.0f} {ort_ms:8.1f} {ort_ms / qdq_ms:13.4f} "
              f"{err:17.1e}")


if __name__ == "__main__":
    main()
