#!/usr/bin/env python3
"""An independent NumPy statement of TensorRT's entropy calibration, to check
the calibrator against.

    entropy_reference.py DATA.npy TABLE.json TENSOR

Reads the calibration data, computes the entropy amax of |x| the way
TensorRT describes its calibrator (a 2048-bin histogram of |x| over
[0, max|x|], the first bin counted as its neighbour, thresholds from bin 128
up, P = the histogram below the threshold with the outliers added to its
last bin, Q = that histogram merged into 128 equal buckets and spread back
over each bucket's non-empty bins, the threshold of least KL(P || Q), the
largest of equal ones), and checks that TABLE.json gives TENSOR that amax
within one bin width. Prints both.
"""

import json
import sys

import numpy as np

BINS, LEVELS = 2048, 128


def entropy_amax(values):
    magnitudes = np.abs(values.astype(np.float64)).ravel()
    top = magnitudes.max()
    hist, edges = np.histogram(magnitudes, bins=BINS, range=(0.0, top))
    hist = hist.astype(np.float64)
    hist[0] = hist[1]
    best, best_end = np.inf, BINS
    for end in range(LEVELS, BINS + 1):
        p = hist[:end].copy()
        p[-1] += hist[end:].sum()
        bucket = np.arange(end) * LEVELS // end
        kept = hist[:end] != 0
        sums = np.bincount(bucket, weights=hist[:end], minlength=LEVELS)
        filled = np.bincount(bucket, weights=kept, minlength=LEVELS)
        q = np.where(kept, sums[bucket] / np.maximum(filled[bucket], 1), 0.0)
        if p.sum() == 0 or q.sum() == 0:
            continue
        p, q = p / p.sum(), q / q.sum()
        mask = p > 0
        if np.any(q[mask] == 0):
            continue
        divergence = float(np.sum(p[mask] * np.log(p[mask] / q[mask])))
        if divergence <= best:
            best, best_end = divergence, end
    return edges[best_end], top / BINS


def main():
    data, table, tensor = sys.argv[1:4]
    expected, width = entropy_amax(np.load(data))
    with open(table) as f:
        got = json.load(f)["tensors"][tensor]["amax"]
    print("reference amax %.6f, calibrator amax %.6f, bin width %.6f" %
          (expected, got, width))
    if abs(got - expected) > width * 1.01:
        sys.exit("entropy amax differs from the reference by more than a bin")


if __name__ == "__main__":
    main()
