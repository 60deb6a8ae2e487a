#!/usr/bin/env python3
"""Independent NumPy statements of the calibration methods, to check the
calibrator's tables against.

    calibration_reference.py METHOD DATA.npy TABLE.json TENSOR [BITS]

Computes amax of TENSOR's values in DATA.npy by METHOD and checks that
TABLE.json gives TENSOR that amax within one bin width of a 2048-bin
histogram of |x| over [0, max|x|]. Prints both.

- max: max |x|.
- percentile: the 99.99th percentile of |x|: the smallest value with at
  least 99.99% of the values at or below it (NumPy's inverted CDF; the
  calibrator returns the upper edge of that value's bin).
- entropy: TensorRT's calibration: thresholds from bin 128 up; P = the
  histogram below the threshold with the values above it added to its last
  bin; Q = that histogram merged into 128 equal buckets (bin i in bucket
  floor(i * 128 / end)) and spread back over each bucket's non-empty bins;
  the first bin counts as its neighbour (the zeros after a ReLU); the
  threshold of least KL(P || Q), the largest of equal ones; never clipping
  more than 1% of the values (then the 99th percentile).
- mse: the bin edge from bin 127 up that minimizes the squared error of
  fake-quantizing the bin centres (weighted by their counts) with 127
  levels of amax / 127, saturating at amax.

For a BITS-wide quantizer (default 8), 128 and 127 are 2^(BITS-1) and
2^(BITS-1) - 1: 8 buckets and 7 levels for int4.
"""

import json
import sys

import numpy as np

BINS = 2048
LEVELS = 128  # 2^(bits - 1); main sets it from BITS


def histogram(values):
    magnitudes = np.abs(values.astype(np.float64)).ravel()
    top = magnitudes.max()
    hist, edges = np.histogram(magnitudes, bins=BINS, range=(0.0, top))
    return magnitudes, hist.astype(np.float64), edges


def entropy_amax(values):
    magnitudes, hist, edges = histogram(values)
    counts = hist.copy()
    counts[0] = counts[1]
    best, best_end = np.inf, BINS
    for end in range(LEVELS, BINS + 1):
        p = counts[:end].copy()
        p[-1] += counts[end:].sum()
        bucket = np.arange(end) * LEVELS // end
        kept = counts[:end] != 0
        sums = np.bincount(bucket, weights=counts[:end], minlength=LEVELS)
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
    amax = edges[best_end]
    if np.mean(magnitudes > amax) > 0.01:
        amax = max(amax, np.percentile(magnitudes, 99.0,
                                       method="inverted_cdf"))
    return amax


def mse_amax(values):
    _, hist, edges = histogram(values)
    width = edges[1]
    centres = (np.arange(BINS) + 0.5) * width
    levels = LEVELS - 1
    best, best_amax = np.inf, edges[-1]
    for end in range(levels, BINS + 1):
        amax = end * width
        scale = amax / levels
        q = np.minimum(np.rint(centres / scale), levels)
        error = float(np.sum(hist * (centres - q * scale) ** 2))
        if error < best:
            best, best_amax = error, amax
    return best_amax


def main():
    global LEVELS
    method, data, table, tensor = sys.argv[1:5]
    LEVELS = 2 ** (int(sys.argv[5]) - 1) if len(sys.argv) > 5 else 128
    values = np.load(data)
    magnitudes = np.abs(values.astype(np.float64))
    expected = {
        "max": lambda: magnitudes.max(),
        "percentile": lambda: np.percentile(magnitudes, 99.99,
                                            method="inverted_cdf"),
        "entropy": lambda: entropy_amax(values),
        "mse": lambda: mse_amax(values),
    }[method]()
    width = magnitudes.max() / BINS
    with open(table) as f:
        got = json.load(f)["tensors"][tensor]["amax"]
    print("%s: reference amax %.6f, calibrator amax %.6f, bin width %.6f" %
          (method, expected, got, width))
    if abs(got - expected) > width * 1.01:
        sys.exit("%s amax differs from the reference by more than a bin" %
                 method)


if __name__ == "__main__":
    main()
