#!/usr/bin/env python3
"""Recomputes, with NumPy, what `qdq-run --compare` printed for an output:

    check_comparison.py REPORT REFERENCE.npy QUANTIZED.npy

REFERENCE and QUANTIZED are the two networks' outputs as qdq-run wrote
them. Checks the SQNR (to 0.01 dB), the max error and the top-1 agreement,
and that the first layer, whose input is exact in both networks, adds all
of its own error (own SQNR = SQNR). Prints the figures it checked.
"""

import re
import sys

import numpy as np


def main():
    report = open(sys.argv[1]).read()
    ref = np.load(sys.argv[2]).astype(np.float64)
    got = np.load(sys.argv[3]).astype(np.float64)
    line = re.search(r"output 'logits' \((\d+)x(\d+)\): SQNR ([-\d.]+) dB, "
                     r"max \|error\| ([-\d.e]+) .*top-1 agreement "
                     r"(\d+)/(\d+)", report)
    assert line, report
    rows, classes = int(line.group(1)), int(line.group(2))
    assert (rows, classes) == ref.shape, (rows, classes, ref.shape)
    sqnr = 10 * np.log10((ref ** 2).sum() / ((ref - got) ** 2).sum())
    assert abs(float(line.group(3)) - sqnr) < 0.01, (line.group(3), sqnr)
    max_error = np.abs(ref - got).max()
    assert abs(float(line.group(4)) - max_error) <= 1e-3 * max_error, (
        line.group(4), max_error)
    agreeing = int((ref.argmax(1) == got.argmax(1)).sum())
    assert int(line.group(5)) == agreeing and int(line.group(6)) == rows
    first = re.search(r"^  conv1 +Conv2D +([-\d.]+) +([-\d.]+) ", report,
                      re.M)
    assert first and first.group(1) == first.group(2), report
    print("checked: SQNR %.2f dB, max error %.4g, top-1 %d/%d"
          % (sqnr, max_error, agreeing, rows))


if __name__ == "__main__":
    main()
