#!/usr/bin/env python3
"""The Llama-shaped decoder of the Python tests for `qdq-run --compare
--tokens`, and NumPy's recomputation of what it printed:

    compare_lm.py make DIR     exports DIR/float.onnx (input_ids [batch,
                               sequence] -> logits [batch, sequence, 100])
                               and writes DIR/x.npz and DIR/calib.npz
    compare_lm.py check REPORT FLOAT.npy QUANTIZED.npy X.npz
                               checks the per-position top-1 agreement and
                               both perplexities of the report against the
                               two networks' logits
"""
import re
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "python" / "tests"))


def make(work):
    import torch
    import transformer_models
    torch.manual_seed(0)
    model = transformer_models.make("decoder").eval()
    axes = {0: "batch", 1: "sequence"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.zeros(1, 16, dtype=torch.int64),),
                          str(work / "float.onnx"), opset_version=17,
                          input_names=["input_ids"], output_names=["logits"],
                          dynamic_axes={"input_ids": axes, "logits": axes})
    rng = np.random.RandomState(5)
    np.savez(work / "x.npz", input_ids=rng.randint(0, 100, (2, 8)))
    np.savez(work / "calib.npz", input_ids=rng.randint(0, 100, (8, 8)))


def perplexity(logits, ids):
    z = logits[:, :-1].astype(np.float64)
    z = z - z.max(-1, keepdims=True)
    log_probs = z - np.log(np.exp(z).sum(-1, keepdims=True))
    next_ids = ids[:, 1:]
    picked = np.take_along_axis(log_probs, next_ids[..., None], -1)
    return float(np.exp(-picked.mean()))


def check(report_path, float_path, quantized_path, x_path):
    report = open(report_path).read()
    ref, got = np.load(float_path), np.load(quantized_path)
    ids = np.load(x_path)["input_ids"]
    line = re.search(r"output 'logits' \((\d+)x(\d+)x(\d+)\): .*top-1 "
                     r"agreement (\d+)/(\d+) .*perplexity ([\d.]+) "
                     r"\(reference ([\d.]+), ([-+][\d.]+)%\)", report)
    assert line, report
    agreeing = int((ref.argmax(-1) == got.argmax(-1)).sum())
    assert int(line.group(4)) == agreeing, (line.group(4), agreeing)
    assert int(line.group(5)) == ref.shape[0] * ref.shape[1]
    ours, reference = perplexity(got, ids), perplexity(ref, ids)
    assert abs(float(line.group(6)) - ours) <= 1e-4 * ours, (line.group(6), ours)
    assert abs(float(line.group(7)) - reference) <= 1e-4 * reference, (
        line.group(7), reference)
    change = 100 * (ours / reference - 1)
    assert abs(float(line.group(8)) - change) < 0.01, (line.group(8), change)
    print("checked: top-1 %d/%d, perplexity %.4f (reference %.4f)"
          % (agreeing, ref.shape[0] * ref.shape[1], ours, reference))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(Path(sys.argv[2]))
    else:
        check(*sys.argv[2:6])
