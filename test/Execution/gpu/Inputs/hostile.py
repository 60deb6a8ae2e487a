# Writes a float32 .npy array of hostile inputs for fake quantization with
# the given scales: exact ties at .5 of the quantization step (round half to
# even), their neighbours one ulp away, steps far past saturation, NaN,
# +-inf, -0.0, subnormals and extremes, then random values.
#
#   hostile.py out.npy SHAPE SCALES AXIS
#
# SHAPE and SCALES are comma-separated; AXIS is the channel axis of SCALES,
# or -1 for one scale. Each channel's elements get the values of its scale.
import sys

import numpy as np


def pattern(scale, size, rng):
    s = np.float32(scale)
    k = np.arange(-200, 200, dtype=np.float32)
    ties = (k + np.float32(0.5)) * s
    values = [ties, np.nextafter(ties, np.float32(np.inf)),
              np.nextafter(ties, np.float32(-np.inf)), k * s]
    f32 = np.finfo(np.float32)
    values.append(np.array(
        [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, f32.max, -f32.max,
         f32.tiny, -f32.tiny, f32.smallest_subnormal, -f32.smallest_subnormal,
         1e-30, -1e-30, 1e30, -1e30], dtype=np.float32))
    out = np.concatenate(values).astype(np.float32)
    if out.size > size:
        sys.exit("hostile.py: %d elements per channel, fewer than the %d "
                 "values" % (size, out.size))
    extra = (rng.standard_normal(size - out.size) * 200 * s).astype(np.float32)
    out = np.concatenate([out, extra])
    rng.shuffle(out)
    return out


def main():
    path, shape, scales, axis = sys.argv[1:5]
    shape = [int(d) for d in shape.split(",")]
    scales = [float(s) for s in scales.split(",")]
    axis = int(axis)
    rng = np.random.RandomState(7)
    x = np.empty(shape, np.float32)
    if axis < 0:
        assert len(scales) == 1, "one scale without an axis"
        x[...] = pattern(scales[0], x.size, rng).reshape(shape)
    else:
        assert len(scales) == shape[axis], "one scale per channel"
        view = np.moveaxis(x, axis, 0)
        for c, scale in enumerate(scales):
            view[c] = pattern(scale, view[c].size, rng).reshape(view[c].shape)
    np.save(path, x)


main()
