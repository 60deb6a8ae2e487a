"""What the quantization-aware training benchmarks (bench/qat) share: the
digits split, their options, and how they report."""

import argparse
from pathlib import Path

import numpy as np

from . import ort
from .recorded import check_recorded, exit_on_differences

RESULTS = Path(__file__).resolve().parent.parent / "qat" / "RESULTS.md"


def split(seed=0, channels_last=False):
    """scikit-learn's 1797 digits, scaled to [-0.5, 0.5], 70% for training
    and 30% (540) held out, stratified: x_train, x_test, y_train, y_test,
    images NCHW (NHWC with `channels_last`)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    data = load_digits()
    x = data.images.astype(np.float32) / 16.0 - 0.5
    x = x[..., None] if channels_last else x[:, None]
    return train_test_split(x, data.target.astype(np.int64), test_size=0.3,
                            random_state=seed, stratify=data.target)


def arguments():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--weight-bits", type=int, default=4)
    parser.add_argument("--fp32-epochs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check-recorded", action="store_true",
                        help="compare the figures with those RESULTS.md "
                        "records for this run")
    return parser.parse_args()


def report(bits, fp32, ptq, trained, epochs, seconds):
    print(f"W{bits}A8 PTQ  top-1 {ptq:.2f}% ({ptq - fp32:+.2f})")
    print(f"W{bits}A8 QAT  top-1 {trained:.2f}% ({trained - fp32:+.2f}) "
          f"after {epochs} epochs ({seconds:.1f} s)")


def report_export(bits, onnx_model, x_test, y_test, own_logits, what):
    """Runs the exported model in ONNX Runtime (rewrites off), one digit at
    a time, and says how it scores and agrees with the trained model."""
    session = ort.session(onnx_model.SerializeToString(), optimize=False)
    name = session.get_inputs()[0].name
    logits = np.concatenate([session.run(None, {name: x_test[i:i + 1]})[0]
                             for i in range(len(x_test))])
    top1 = 100.0 * float(np.mean(logits.argmax(1) == y_test))
    agree = 100.0 * float(np.mean(logits.argmax(1) == own_logits.argmax(1)))
    print(f"W{bits}A8 QAT exported, ONNX Runtime top-1 {top1:.2f}%, agreeing "
          f"with {what} on {agree:.2f}% of the digits")
    return top1


def check_run(args, framework, tolerance, **top1):
    """With --check-recorded, the run's top-1 figures (FP32, PTQ, QAT,
    exported) against the row RESULTS.md records for the same framework,
    bits and epochs."""
    if not args.check_recorded:
        return
    row = (f"{framework} W{args.weight_bits}A8, {args.fp32_epochs} + "
           f"{args.epochs} epochs")
    exit_on_differences(check_recorded(
        RESULTS, "What the benchmark test checks", None, {row: top1},
        {column: tolerance for column in top1}, whole_table=False))
