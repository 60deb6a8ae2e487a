#!/usr/bin/env python3
"""Output SQNR of INT8 against FP32 on torchvision models, per calibration
method, and qdq-run's speed against onnxruntime-node.

For ResNet-18 and MobileNet-v2 (random weights, 1x3x64x64 inputs):
  qdq-opt model.onnx --insert-qdq=<case> --calibrate="data=calib.npy method=<m>"
          -o model.qdq.onnx
then both models run in onnxruntime-node on 8 fresh random inputs and
SQNR = 10 log10(sum y^2 / sum (y - y_int8)^2) over all outputs.

usage: bench/execution/sqnr.py [build-dir]
"""
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
root = here.parent.parent
build = Path(sys.argv[1]) if len(sys.argv) > 1 else root / "build"
export = root / "test" / "Integration" / "Inputs" / "export_torchvision.py"
RUNNER = root / "test" / "Integration" / "node" / "run_onnx.mjs"


def ort_outputs(model, inputs, work, tag):
    """Runs `model` in onnxruntime-node on each input; returns the outputs
    and the mean time per run."""
    outs, times = [], []
    for i, x in enumerate(inputs):
        xin, yout = work / f"{tag}.in{i}.f32", work / f"{tag}.out{i}.f32"
        x.tofile(xin)
        t = subprocess.run(["node", str(RUNNER), str(model), str(xin), str(yout),
                            "x".join(map(str, x.shape)), "20"],
                           check=True, capture_output=True, text=True).stdout
        times.append(float(t))
        outs.append(np.fromfile(yout, np.float32))
    return outs, float(np.median(times))


def sqnr(ref, got):
    ref, got = np.concatenate(ref), np.concatenate(got)
    return 10 * np.log10((ref ** 2).sum() / ((ref - got) ** 2).sum())


def main():
    work = Path(tempfile.mkdtemp(prefix="qdq-sqnr-"))
    rng = np.random.RandomState(0)
    calib = rng.rand(16, 3, 64, 64).astype(np.float32)
    np.save(work / "calib.npy", calib)
    inputs = [rng.rand(1, 3, 64, 64).astype(np.float32) for _ in range(8)]
    print("model        case        method      SQNR dB  calibration s")
    for name, case in [("resnet18", "resnet-v1"), ("mobilenet_v2", "mobilenet")]:
        model = work / f"{name}.onnx"
        subprocess.run([sys.executable, str(export), name, str(model)], check=True)
        ref, ort_ms = ort_outputs(model, inputs, work, f"{name}.fp32")
        for method in ["max", "percentile", "entropy", "mse"]:
            out = work / f"{name}.{method}.onnx"
            start = time.time()
            subprocess.run([str(build / "bin" / "qdq-opt"), str(model),
                            f"--insert-qdq={case}",
                            f"--calibrate=data={work / 'calib.npy'} method={method}",
                            "-o", str(out)], check=True)
            seconds = time.time() - start
            got, _ = ort_outputs(out, inputs, work, f"{name}.{method}")
            print(f"{name:<12} {case:<11} {method:<11} {sqnr(ref, got):7.1f}  {seconds:13.1f}")
        # Throughput: qdq-run (the project's CPU JIT) vs onnxruntime, FP32.
        np.save(work / "x.npy", inputs[0])
        run = subprocess.run([str(build / "bin" / "qdq-run"), str(model), "--input",
                              str(work / "x.npy"), "--repeat", "3"],
                             check=True, capture_output=True, text=True).stderr
        qdq_ms = float(run.split("qdq-run: ")[1].split(" ms")[0])
        print(f"{name:<12} FP32 batch 1: qdq-run {qdq_ms:.1f} ms, onnxruntime-node "
              f"{ort_ms:.2f} ms per image (qdq-run / ORT = {qdq_ms / ort_ms:.0f}x)")


if __name__ == "__main__":
    main()
