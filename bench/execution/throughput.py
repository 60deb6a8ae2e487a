#!/usr/bin/env python3
"""qdq-run's throughput against ONNX Runtime on the engine's goal models:
torchvision ResNet-50, MobileNet-v2 and ViT-B/16 at 224x224 (random
weights) and the BERT-base-shaped encoder of bench/common/models.py (12
layers, 128 random token ids a sample), FP32, batch 1 and 8, and the
largest difference between the two outputs relative to the output range.
(Decoder LMs: bench/llm/hf_throughput.py.)

Both run in this script on this machine with the same threads: every core
(qdq-run's OpenMP default, ONNX Runtime's intra-op default), ONNX Runtime
with its graph optimizations. qdq-run's time is the median of
`--repeat` runs after a warm-up run, as many as span 0.2 s and at least 5
(5 runs of MobileNet-v2 at batch 1 are 10 ms, which one neighbour's burst
could double); ONNX Runtime's is the median of 20 after 3. (Until
2026-12-08 qdq-run printed the mean, against ONNX Runtime's median: on
this shared host the mean of MobileNet-v2's runs at batch 1 was 1.846 ms
where their median was 1.779, a 4% handicap.) The
two take turns, `ROUNDS` rounds each (3 by default), and each keeps its
best round: on a shared machine, neighbours slow one tool's round or the
other's, and a single round's ratio can be off by 1.5x either way.

usage: bench/execution/throughput.py [build-dir] [model ...]
"""
import math
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
chosen = sys.argv[2:] or ["resnet50", "mobilenet_v2", "vit_b_16", "bert_like"]
ROUNDS = int(os.environ.get("ROUNDS", "3"))


def build_model(name, work):
    if name == "vit_b_16":
        return models.vit_b_16(work, calib=1, evaluate=1)
    if name == "bert_like":
        return models.bert_like(work, calib=1, evaluate=1)
    return models.torchvision_cnn(name, work, calib=1, evaluate=1)


def qdq_run_ms(onnx, x, work, repeat):
    np.save(work / "x.npy", x)
    err = subprocess.run([str(build / "bin" / "qdq-run"), str(onnx),
                          "--input", str(work / "x.npy"), "--output",
                          str(work / "y.npy"), "--repeat", str(repeat)],
                         check=True, capture_output=True, text=True).stderr
    return float(err.split("qdq-run: ")[1].split(" ms")[0])


def main():
    work = Path(tempfile.mkdtemp(prefix="qdq-throughput-"))
    print(f"{os.cpu_count()} threads")
    print("model          batch  qdq-run /s   ORT /s   qdq-run/ORT"
          "   max|diff|/range")
    for name in chosen:
        model = build_model(name, work)
        for batch in (1, 8):
            rng = np.random.RandomState(batch)
            sample = model.evaluation[0]
            if sample.dtype == np.int64:  # token ids
                x = rng.randint(0, int(model.calibration.max()) + 1,
                                (batch, *sample.shape[1:])).astype(np.int64)
            else:
                x = rng.rand(batch, *sample.shape[1:]).astype(np.float32)
            qdq_ms = ort_ms = float("inf")
            for _ in range(ROUNDS):
                ort_ms = min(ort_ms, ort.latency_ms(model.onnx, x))
                repeat = max(5, math.ceil(200 / ort_ms))
                qdq_ms = min(qdq_ms, qdq_run_ms(model.onnx, x, work, repeat))
            ref = ort.outputs(model.onnx, [x])[0]
            got = np.load(work / "y.npy")
            err = float(np.abs(ref - got).max() / (ref.max() - ref.min()))
            print(f"{name:<14} {batch:5d} {1000 * batch / qdq_ms:14.1f} "
                  f"{1000 * batch / ort_ms:11.1f} {ort_ms / qdq_ms:13.3f} "
                  f"{err:17.1e}", flush=True)


if __name__ == "__main__":
    main()
