#!/usr/bin/env python3
"""Exports a torchvision model with random weights to ONNX.

    export_torchvision.py NAME OUTPUT.onnx [SIZE [BATCH]]

The model is built in eval mode with a fixed seed, and exported at batch
BATCH (default 1), SIZE x SIZE (default 64) pixels, opset 13, input "input" and output
"logits" (`export(name, output, size, batch)` for a script that imports
this). Needs Debian's python3-torch and python3-torchvision; an import
error fails the test that runs this (scripts/setup.sh installs them).
"""

import sys
import warnings

import torch
import torchvision


def export(name, output, size=64, batch=1):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)()
    model.eval()
    x = torch.randn(batch, 3, size, size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, x, output, opset_version=13,
                          input_names=["input"], output_names=["logits"],
                          do_constant_folding=True)


def main():
    name, output = sys.argv[1], sys.argv[2]
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    batch = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    export(name, output, size, batch)


if __name__ == "__main__":
    main()
