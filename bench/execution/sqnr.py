#!/usr/bin/env python3
"""Output SQNR of INT8 against FP32 on torchvision models, per calibration
method, and qdq-run's throughput against onnxruntime-node (batch 1 and 8).

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
import torch
import torchvision

here = Path(__file__).resolve().parent
root = here.parent.parent
build = Path(sys.argv[1]) if len(sys.argv) > 1 else root / "build"
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
    # (run_onnx.mjs times `repeat` runs and prints the median.)
    return outs, float(np.median(times))


def export(name, path):
    """torchvision `name` with random weights, dynamic batch, 64x64. The
    batch-norm statistics are re-estimated on random inputs first: with the
    default ones (mean 0, variance 1) a random MobileNet-v2's activations
    shrink to 1e-9 by the last block, which measures denormal arithmetic,
    not quantization."""
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)()
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None  # a plain average over the batches below
    model.train()
    with torch.no_grad():
        for _ in range(8):
            model(torch.rand(16, 3, 64, 64))
    model.eval()
    torch.onnx.export(model, torch.randn(1, 3, 64, 64), str(path),
                      opset_version=13, input_names=["input"],
                      output_names=["logits"],
                      dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})


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
        export(name, model)
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
        for batch in (1, 8):
            x = rng.rand(batch, 3, 64, 64).astype(np.float32)
            np.save(work / "x.npy", x)
            run = subprocess.run([str(build / "bin" / "qdq-run"), str(model), "--input",
                                  str(work / "x.npy"), "--repeat", "2"],
                                 check=True, capture_output=True, text=True).stderr
            qdq_ms = float(run.split("qdq-run: ")[1].split(" ms")[0])
            _, ort_ms = ort_outputs(model, [x], work, f"{name}.b{batch}")
            print(f"{name:<12} FP32 batch {batch}: qdq-run {batch * 1000 / qdq_ms:.2f} "
                  f"images/s, onnxruntime-node {batch * 1000 / ort_ms:.1f} images/s "
                  f"(ratio {ort_ms / qdq_ms:.4f})")


if __name__ == "__main__":
    main()
