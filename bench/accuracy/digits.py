#!/usr/bin/env python3
"""PTQ accuracy on real data: scikit-learn's handwritten digits.

Trains a small CNN with residual adds, batch norm and max pooling in a few
seconds with PyTorch, exports it to ONNX, then for each library case and
each calibration method runs

    qdq-opt model.onnx --insert-qdq=<case> --calibrate="data=calib.npy method=<m>"
            -o model.qdq.onnx

and measures top-1 on the held-out split by running both the FP32 model and
the QDQ model in onnxruntime-node (an independent runtime).

usage: bench/accuracy/digits.py [build-dir]
"""
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
import torch
import torch.nn as nn
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

here = Path(__file__).resolve().parent
build = Path(sys.argv[1]) if len(sys.argv) > 1 else here.parent.parent / "build"
qdq_opt = build / "bin" / "qdq-opt"


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU())
        self.block1, self.pool = Block(16), nn.MaxPool2d(2)
        self.block2 = Block(16)
        self.head = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(32), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                  nn.Linear(32, 10))

    def forward(self, x):
        return self.head(self.block2(self.pool(self.block1(self.stem(x)))))


def main():
    torch.manual_seed(0)
    digits = load_digits()
    x = (digits.images.astype(np.float32) / 16.0 - 0.5)[:, None]
    y = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.3, random_state=0, stratify=y)

    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    start = time.time()
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    for epoch in range(30):
        perm = torch.randperm(len(xt))
        model.train()
        for i in range(0, len(xt), 64):
            idx = perm[i:i + 64]
            opt.zero_grad()
            nn.functional.cross_entropy(model(xt[idx]), yt[idx]).backward()
            opt.step()
    model.eval()
    train_seconds = time.time() - start

    work = Path(tempfile.mkdtemp(prefix="qdq-digits-"))
    onnx_path = work / "digits.onnx"
    torch.onnx.export(model, torch.zeros(1, 1, 8, 8), str(onnx_path),
                      opset_version=13, input_names=["image"],
                      output_names=["logits"])
    # Calibration: 256 training images, never the test split.
    np.save(work / "calib.npy", x_train[:256])
    x_test.astype(np.float32).tofile(work / "images.f32")
    y_test.astype(np.int32).tofile(work / "labels.i32")

    def accuracy(path):
        out = subprocess.run(
            ["node", str(here / "evaluate.mjs"), str(path), str(work / "images.f32"),
             str(work / "labels.i32"), str(len(x_test)), "1", "8", "8"],
            check=True, capture_output=True, text=True).stdout
        return json.loads(out)["accuracy"] * 100

    fp32 = accuracy(onnx_path)
    print(f"digits: {len(x_train)} train / {len(x_test)} test images, "
          f"trained in {train_seconds:.1f} s; FP32 top-1 {fp32:.2f}% (onnxruntime)")
    print(f"{'case':<10} {'method':<11} {'Q/DQ pairs':>10} {'INT8 top-1':>10} {'delta':>7}")
    worst = 0.0
    for case in ["default", "resnet-v1", "resnet-v2"]:
        for method in ["max", "percentile", "entropy", "mse"]:
            out = work / f"{case}-{method}.onnx"
            flag = "--insert-qdq" if case == "default" else f"--insert-qdq={case}"
            subprocess.run([str(qdq_opt), str(onnx_path), flag,
                            f"--calibrate=data={work / 'calib.npy'} method={method}",
                            "-o", str(out)], check=True)
            int8 = accuracy(out)
            pairs = sum(n.op_type == "QuantizeLinear" for n in onnx.load(str(out)).graph.node)
            if method in ("max", "entropy"):
                worst = max(worst, fp32 - int8)
            print(f"{case:<10} {method:<11} {pairs:>10} {int8:>9.2f}% {int8 - fp32:>+6.2f}")
    print(f"largest drop with max or entropy calibration: {worst:.2f} points")


if __name__ == "__main__":
    main()
