# Checks the inputs and the --device=cpu results of inputs.test (in the
# folder given): the hostile arrays hold their hostile values, and each CPU
# result is, bit for bit, fake quantization computed by numpy in float32:
# clamp(round_half_even(x / s) + zp), NaN to zp, then (q - zp) * s.
import sys

import numpy as np

folder = sys.argv[1]


def load(name):
    return np.load("%s/%s" % (folder, name))


x = load("t.5.npy")
with np.errstate(all="ignore"):
    found = [np.isnan(x).any(), np.isposinf(x).any(), np.isneginf(x).any(),
             ((x == 0) & np.signbit(x)).any(),
             ((x != 0) & (np.abs(x) < np.finfo(np.float32).tiny)).any(),
             (np.abs(x / np.float32(0.5) % 1) == 0.5).sum() >= 100]
assert all(found), found
print("t.5.npy: NaN, +inf, -inf, -0.0, subnormal, ties")


def fake_quant(x, scales, zero_points, lo, hi, axis=None):
    shape = [1] * x.ndim
    if axis is not None:
        shape[axis] = -1
    s = np.asarray(scales, np.float32).reshape(shape)
    zp = np.asarray(zero_points, np.float32).reshape(shape)
    with np.errstate(all="ignore"):
        q = np.round(x / s) + zp
        q = np.minimum(np.maximum(q, np.float32(lo)), np.float32(hi))
        q = np.where(np.isnan(x), zp, q).astype(np.float32)
        return ((q - zp) * s).astype(np.float32)


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and \
        (a.view(np.uint32) == b.view(np.uint32)).all()


scales = [0.5, 0.0235, 0.1, 0.003]
cases = [
    ("pow2.npy", "t.5.npy", ([0.5], [0], -127, 127)),
    ("tensor.npy", "t.0235.npy", ([0.0235], [0], -127, 127)),
    ("unsigned.npy", "t.5.npy", ([0.5], [128], 0, 255)),
    ("4bit.npy", "t.5.npy", ([0.5], [0], -7, 7)),
    ("channel.npy", "c.npy", (scales, [0, 0, 0, 0], -127, 127, 1)),
    ("asym.npy", "c.npy", (scales, [-3, 0, 17, -128], -128, 127, 1)),
]
for result, source, args in cases:
    expected = fake_quant(load(source), *args)
    got = load(result)
    if not same_bits(got, expected):
        bad = np.flatnonzero(got.view(np.uint32) != expected.view(np.uint32))
        sys.exit("%s: %d elements differ from numpy, first at %d: %r against "
                 "%r" % (result, bad.size, bad[0], got.reshape(-1)[bad[0]],
                         expected.reshape(-1)[bad[0]]))
    print("%s: as numpy" % result)
