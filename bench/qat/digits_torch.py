#!/usr/bin/env python3
"""Quantization-aware training recovers what post-training quantization
loses: the digits CNN in PyTorch (bench/common/models.py's DigitsNet),
weights at 4 bits, activations at 8.

Trains DigitsNet in float on 70% of scikit-learn's handwritten digits and
measures top-1 on the 540 held-out digits:

  FP32       the trained module;
  PTQ        quantize_model(net, example_input=, qat=True) at the ResNet-v1
             placement, ranges from the float module on 256 training
             images, no training;
  QAT        the same module after a few epochs of a plain training loop;
  QAT, ONNX  the trained module exported with export_qat_module (4-bit
             weights as opset-21 INT4 initializers) and run by ONNX
             Runtime, compared with the module itself.

usage: bench/qat/digits_torch.py [--epochs N] [--weight-bits B]
                                 [--fp32-epochs N] [--check-recorded]

With --check-recorded, the four top-1 figures must agree with the row of
RESULTS.md's "What the benchmark test checks" for the same bits and epochs
(within TOLERANCE points, below).
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import reproducible  # noqa: E402  (before torch)

import numpy as np  # noqa: E402
import torch  # noqa: E402

from common import digits_qat  # noqa: E402
from common.models import DigitsNet  # noqa: E402

import quant_qdq as qq  # noqa: E402
from quant_qdq.torch.qat import export_qat_module  # noqa: E402

# Two of the 540 digits: training takes the same arithmetic on every host
# (common/reproducible.py), and two runs gave the same figures.
TOLERANCE = 0.4


def train(model, x, y, epochs, lr):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    model.train()
    for _ in range(epochs):
        order = torch.randperm(len(xt))
        for i in range(0, len(xt), 64):
            idx = order[i:i + 64]
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(xt[idx]),
                                              yt[idx]).backward()
            optimizer.step()
    model.eval()


def top1(model, x, y):
    with torch.no_grad():
        logits = model(torch.from_numpy(x)).numpy()
    return 100.0 * float(np.mean(logits.argmax(1) == y))


def main():
    args = digits_qat.arguments()
    reproducible.single_threaded_torch()
    torch.manual_seed(args.seed)
    x_train, x_test, y_train, y_test = digits_qat.split(args.seed)

    start = time.time()
    model = DigitsNet()
    train(model, x_train, y_train, args.fp32_epochs, lr=3e-3)
    fp32 = top1(model, x_test, y_test)
    print(f"FP32 trained in {time.time() - start:.1f} s: top-1 {fp32:.2f}% "
          f"on {len(y_test)} held-out digits")

    bits = args.weight_bits
    qat = qq.quantize_model(model, example_input=torch.zeros(1, 1, 8, 8),
                            custom_qdq_cases=[qq.ResNetV1QDQCase()],
                            qat=True, weight_bits=bits, activation_bits=8,
                            calibration_data=x_train[:256])
    qat.eval()
    ptq = top1(qat, x_test, y_test)
    start = time.time()
    train(qat, x_train, y_train, args.epochs, lr=1e-3)
    trained = top1(qat, x_test, y_test)
    digits_qat.report(bits, fp32, ptq, trained, args.epochs,
                      time.time() - start)
    with torch.no_grad():
        own = qat(torch.from_numpy(x_test)).numpy()
    exported = digits_qat.report_export(bits, export_qat_module(qat), x_test,
                                        y_test, own, "the module")
    digits_qat.check_run(args, "PyTorch", TOLERANCE, FP32=fp32, PTQ=ptq,
                         QAT=trained, exported=exported)


if __name__ == "__main__":
    sys.exit(main())
