#!/usr/bin/env python3
"""Output SQNR of INT8 against FP32 on torchvision models, per calibration
method, and qdq-run's throughput against ONNX Runtime (batch 1 and 8).

For ResNet-18 and MobileNet-v2 (random weights, BN statistics re-estimated,
1x3x64x64 inputs):
  qdq-opt model.onnx --insert-qdq=<case> --calibrate="data=calib.npy method=<m>"
          -o model.qdq.onnx
then both models run in ONNX Runtime on 8 fresh random inputs and
SQNR = 10 log10(sum y^2 / sum (y - y_int8)^2) over all outputs.
bench/peers compares the same with the peers, at 224.

usage: bench/execution/sqnr.py [build-dir]
"""
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
from common import models, ort  # noqa: E402

build = Path(sys.argv[1]) if len(sys.argv) > 1 else here.parent.parent / "build"


def main():
    work = Path(tempfile.mkdtemp(prefix="qdq-sqnr-"))
    rng = np.random.RandomState(1)
    print("model        case        method      SQNR dB  calibration s")
    for name in ["resnet18", "mobilenet_v2"]:
        model = models.torchvision_cnn(name, work, size=64)
        np.save(work / "calib.npy", model.calibration)
        ref = ort.outputs(model.onnx, model.evaluation)
        for method in ["max", "percentile", "entropy", "mse"]:
            out = work / f"{name}.{method}.onnx"
            start = time.time()
            subprocess.run([str(build / "bin" / "qdq-opt"), str(model.onnx),
                            f"--insert-qdq={model.case}",
                            f"--calibrate=data={work / 'calib.npy'} method={method}",
                            "-o", str(out)], check=True)
            seconds = time.time() - start
            got = ort.outputs(out, model.evaluation)
            print(f"{name:<12} {model.case:<11} {method:<11} "
                  f"{ort.sqnr_db(ref, got):7.1f}  {seconds:13.1f}")
        # Throughput: qdq-run (the project's CPU JIT) vs ONNX Runtime, FP32.
        for batch in (1, 8):
            x = rng.rand(batch, 3, 64, 64).astype(np.float32)
            np.save(work / "x.npy", x)
            run = subprocess.run([str(build / "bin" / "qdq-run"), str(model.onnx),
                                  "--input", str(work / "x.npy"), "--repeat", "2"],
                                 check=True, capture_output=True, text=True).stderr
            qdq_ms = float(run.split("qdq-run: ")[1].split(" ms")[0])
            ort_ms = ort.latency_ms(model.onnx, x)
            print(f"{name:<12} FP32 batch {batch}: qdq-run {batch * 1000 / qdq_ms:.2f} "
                  f"images/s, onnxruntime {batch * 1000 / ort_ms:.1f} images/s "
                  f"(ratio {ort_ms / qdq_ms:.4f})")


if __name__ == "__main__":
    main()
