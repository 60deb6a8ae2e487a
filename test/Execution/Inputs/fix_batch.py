#!/usr/bin/env python3
"""Fixes the first dimension of an ONNX model's inputs and outputs:

    fix_batch.py IN.onnx OUT.onnx SIZE

as an exporter given one example and no dynamic axes writes it."""
import sys

import onnx


def main():
    model = onnx.load(sys.argv[1])
    size = int(sys.argv[3])
    for value in list(model.graph.input) + list(model.graph.output):
        first = value.type.tensor_type.shape.dim[0]
        first.Clear()
        first.dim_value = size
    onnx.save(model, sys.argv[2])


if __name__ == "__main__":
    main()
