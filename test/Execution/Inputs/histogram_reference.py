"""Inputs for histogram.test, and its check against NumPy.

histogram_reference.py make X.npy             hostile values, 80000 of them
histogram_reference.py check X.npy Y.npy BINS SCALE
    Y must hold, for each row of X (its first dimension, one row below
    rank 3 here: the test's shapes), the counts of |x| in bin
    min(floor(|x| * SCALE), BINS - 1), in float64, NaN not counted.
"""
import sys

import numpy as np


def make(path):
    rng = np.random.RandomState(7)
    x = (rng.randn(80000) * 2).astype(np.float32)
    edges = np.arange(0, 2048, dtype=np.float64) / 409.6
    special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30,
                        -1e30, 1e-45, 5.0, 4.999999, 3.0e38], np.float32)
    x[:special.size] = special
    # Values at bin edges, one ulp either side: where f32 and f64 differ.
    e = edges[1:2000:7].astype(np.float32)
    x[100:100 + e.size] = e
    x[1000:1000 + e.size] = np.nextafter(e, np.float32(np.inf))
    x[2000:2000 + e.size] = -np.nextafter(e, np.float32(0))
    np.save(path, x)


def check(x_path, y_path, bins, scale):
    x, y = np.load(x_path), np.load(y_path)
    rows = x.reshape(y.shape[0], -1).astype(np.float64)
    want = np.zeros(y.shape, np.int64)
    for r, row in enumerate(rows):
        row = row[~np.isnan(row)]
        index = np.minimum(np.abs(row) * scale, bins - 1).astype(np.int64)
        want[r] = np.bincount(index, minlength=bins)
    if y.dtype != np.int64 or not np.array_equal(y, want):
        bad = np.argwhere(y != want)[:5]
        sys.exit("%s: counts differ at %s: %s against %s" % (
            y_path, bad.tolist(), [y[tuple(b)] for b in bad],
            [want[tuple(b)] for b in bad]))
    print("%s: %d rows of %d bins as NumPy counts them, %d values" % (
        y_path.rsplit("/", 1)[-1], y.shape[0], y.shape[1], y.sum()))


if sys.argv[1] == "make":
    make(sys.argv[2])
else:
    check(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
