#!/usr/bin/env python3
"""`make demo`'s model: the digits CNN of bench/accuracy, trained here.

    demo_digits.py OUT

Trains bench/common's DigitsNet (a stem, two residual blocks with batch
norm, max pooling, a conv head, a dense layer) on 70% of scikit-learn's
handwritten digits with PyTorch, and writes into OUT:
digits.onnx (exported, dynamic batch), calib.npy (256 training images),
test.npy and labels.npy (the 540 held-out images and their classes).
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from common import models  # noqa: E402


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    model = models.digits_cnn(out)
    model.onnx.replace(out / "digits.onnx")
    np.save(out / "calib.npy", model.calibration)
    np.save(out / "test.npy", np.concatenate(model.evaluation))
    np.save(out / "labels.npy", model.labels)
    print(f"   {model.notes[0]}, in {time.time() - start:.1f} s: "
          f"{out / 'digits.onnx'}")


if __name__ == "__main__":
    main()
