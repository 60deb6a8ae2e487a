#!/usr/bin/env python3
"""Independent NumPy statements of the calibration methods, to check the
calibrator's tables against.

    calibration_reference.py METHOD DATA.npy TABLE.json TENSOR [BITS]
    calibration_reference.py --counts METHOD COUNTS.npy EDGE [BITS]

Computes amax of TENSOR's values in DATA.npy by METHOD and checks that
TABLE.json gives TENSOR that amax within one bin width of a 2048-bin
histogram of |x| over [0, max|x|]. Prints both.

With --counts, the histogram is given: COUNTS.npy holds the counts of
equal bins over [0, EDGE]; prints the amax METHOD chooses from them, the
value the calibrator's TensorStatistics must give exactly
(unittests/Calibration/TensorStatisticsTest.cpp). Percentiles are then
the upper edge of the bin where the cumulative count reaches them.

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


def entropy_threshold(hist, edges):
    """The KL threshold alone, before the clipping bound."""
    counts = hist.astype(np.float64).copy()
    bins = len(counts)
    counts[0] = counts[1]
    best, best_end = np.inf, bins
    for end in range(LEVELS, bins + 1):
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
    return edges[best_end]


def entropy_amax(values):
    magnitudes, hist, edges = histogram(values)
    amax = entropy_threshold(hist, edges)
    if np.mean(magnitudes > amax) > 0.01:
        amax = max(amax, np.percentile(magnitudes, 99.0,
                                       method="inverted_cdf"))
    return amax


def counts_percentile(hist, edges, percentile):
    """The upper edge of the bin where the cumulative count reaches the
    percentile."""
    reached = np.cumsum(hist) >= hist.sum() * percentile / 100.0
    return edges[int(np.argmax(reached)) + 1]


def counts_entropy_amax(hist, edges):
    amax = entropy_threshold(hist, edges)
    first = int(np.ceil(amax / edges[1]))
    if hist[first:].sum() > 0.01 * hist.sum():
        amax = max(amax, counts_percentile(hist, edges, 99.0))
    return amax


def mse_amax(values):
    _, hist, edges = histogram(values)
    return counts_mse_amax(hist, edges)


def counts_mse_amax(hist, edges):
    bins = len(hist)
    width = edges[1]
    centres = (np.arange(bins) + 0.5) * width
    levels = LEVELS - 1
    best, best_amax = np.inf, edges[-1]
    for end in range(levels, bins + 1):
        amax = end * width
        scale = amax / levels
        q = np.minimum(np.rint(centres / scale), levels)
        error = float(np.sum(hist * (centres - q * scale) ** 2))
        if error < best:
            best, best_amax = error, amax
    return best_amax


def counts_main(method, counts, edge, bits):
    global LEVELS
    LEVELS = 2 ** (bits - 1)
    hist = np.load(counts).astype(np.float64)
    edges = np.arange(len(hist) + 1) * (edge / len(hist))
    amax = {
        "max": lambda: edge,
        "percentile": lambda: counts_percentile(hist, edges, 99.99),
        "entropy": lambda: counts_entropy_amax(hist, edges),
        "mse": lambda: counts_mse_amax(hist, edges),
    }[method]()
    print("%s: amax %r" % (method, float(amax)))


def reference_amax(method, values, percentile=99.99):
    """The amax METHOD chooses for `values`; the calibrator's is within
    one bin width (max |x| / 2048) of it."""
    magnitudes = np.abs(values.astype(np.float64))
    return {
        "max": lambda: magnitudes.max(),
        "percentile": lambda: np.percentile(magnitudes, percentile,
                                            method="inverted_cdf"),
        "entropy": lambda: entropy_amax(values),
        "mse": lambda: mse_amax(values),
    }[method]()


def bin_width(values):
    """The width of a bin of the 2048 over [0, max|x|]."""
    return np.abs(values.astype(np.float64)).max() / BINS


def within_a_bin(got, expected, values):
    """Whether the calibrator's amax `got` is the reference's `expected`
    to a bin of `values`' histogram (and rounding)."""
    return abs(got - expected) <= bin_width(values) * 1.01


def main():
    global LEVELS
    if sys.argv[1] == "--counts":
        bits = int(sys.argv[5]) if len(sys.argv) > 5 else 8
        return counts_main(sys.argv[2], sys.argv[3], float(sys.argv[4]), bits)
    method, data, table, tensor = sys.argv[1:5]
    LEVELS = 2 ** (int(sys.argv[5]) - 1) if len(sys.argv) > 5 else 128
    values = np.load(data)
    expected = reference_amax(method, values)
    width = bin_width(values)
    with open(table) as f:
        got = json.load(f)["tensors"][tensor]["amax"]
    print("%s: reference amax %.6f, calibrator amax %.6f, bin width %.6f" %
          (method, expected, got, width))
    if not within_a_bin(got, expected, values):
        sys.exit("%s amax differs from the reference by more than a bin" %
                 method)


if __name__ == "__main__":
    main()
