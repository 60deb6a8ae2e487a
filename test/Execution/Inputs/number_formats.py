#!/usr/bin/env python3
"""round_to_format, run by qdq-run, against a NumPy reference written from
TensorQuant's kernels (seed 004) and docs/Quantizers.md: every format on
hostile values (ties, saturation, zeros of both signs, subnormals, infinities,
NaN) and random ones, compared bit for bit; stochastic rounding's position
and seed, determinism and mean; ternary's threshold from the tensor; dynamic
shapes. With DEVICE=cuda, qdq-run rounds on the GPU, against the same
reference.

    number_formats.py QDQ_RUN WORKDIR [DEVICE]
"""
import subprocess
import sys
from pathlib import Path

import numpy as np

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix(z):
    """SplitMix64's finalizer on uint64 arrays (or a Python int)."""
    if isinstance(z, int):
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & M64
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB & M64
        return z ^ (z >> 31)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def uniform(n, seed):
    """The generator of NumberFormatArithmetic.h: u in [0, 1) per position."""
    p = np.arange(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(mix(seed & M64)) + (p + np.uint64(1)) * np.uint64(GOLDEN)
    top = mix(z) >> np.uint64(40)
    return top.astype(np.float32) * np.float32(2.0 ** -24)


def floor(x, v):
    """floor(x * 2^f) where v = x * 2^f in f32: exact but for an underflow
    to zero, after which a negative x still floors to -1."""
    return np.where((x < 0) & (v == 0), np.float32(-1), np.floor(v))


def fixed_point(x, bits, frac, rounding, seed=0):
    v = x * np.float32(2.0 ** frac)
    a = np.abs(v)
    if rounding == "nearest":  # half away from zero, without float error
        fl = np.floor(a)
        r = np.copysign(np.where(a - fl >= 0.5, fl + 1, fl), v)
    elif rounding == "zero":
        r = np.trunc(v)
    elif rounding == "down":
        r = floor(x, v)
    else:
        down = floor(x, v)
        u = uniform(v.size, seed).reshape(v.shape)
        r = down + np.where(u < v - down, np.float32(1), np.float32(0))
    half = 2.0 ** (bits - 1)
    r = np.where(np.isnan(r), r, np.clip(r, -half, half - 1))
    return (r * np.float32(2.0 ** -frac)).astype(np.float32)


def binary(x, m):
    return np.where(np.isnan(x), x, np.where(x >= 0, m, -m)).astype(np.float32)


def ternary(x, m, th=None):
    if th is None:
        th = np.float32(0.7 * np.abs(x.astype(np.float64)).sum() / x.size)
    out = np.where(x > th, m, np.where(x < -th, -m, 0))
    return np.where(np.isnan(x), x, out).astype(np.float32)


def logarithmic(x):
    mant, exp = np.frexp(x)  # x = mant * 2^exp, |mant| in [0.5, 1)
    power = np.ldexp(np.float32(1), exp - 1).astype(np.float32)
    out = np.where(np.isfinite(x) & (x != 0), np.copysign(power, x), x)
    return out.astype(np.float32)


def sparse(x, th):
    return np.where(np.abs(x) < th, np.copysign(np.float32(0), x), x)


def half(x):
    with np.errstate(over="ignore"):
        return x.astype(np.float16).astype(np.float32)


def hostile(frac):
    """Ties and near-ties on the 2^-frac grid, saturation, both zeros,
    subnormals, powers of two and their neighbours, infinities, NaN."""
    step = 2.0 ** -frac
    ties = [(k + 0.5) * step for k in range(-6, 6)]
    near = [np.nextafter(np.float32(t), np.float32(np.inf)) for t in ties]
    near += [np.nextafter(np.float32(t), np.float32(-np.inf)) for t in ties]
    special = [0.0, -0.0, 1e-40, -1e-40, 1.4e-45, -1.4e-45, 2.0 ** -126,
               0.49999997,
               -0.49999997, 1.0, 2.0, 1.9999999, -3.0, 1e6, -1e6, 3e38,
               np.inf, -np.inf, np.nan, 127.99, -128.01, 0.3, -0.7]
    return np.array(ties + near + special, dtype=np.float32)


DEVICE = "cpu"


def run(qdq_run, work, name, fmt, x, shape_type=None):
    """Runs round_to_format with `fmt` on `x` through qdq-run."""
    element = {np.float32: "f32", np.float64: "f64",
               np.float16: "f16"}[x.dtype.type]
    ty = shape_type or "tensor<%sx%s>" % ("x".join(map(str, x.shape)), element)
    mlir = work / (name + ".mlir")
    mlir.write_text(
        "func.func @main(%%x: %s) -> %s {\n"
        "  %%y = quant_qdq.round_to_format %%x <%s> : %s\n"
        "  return %%y : %s\n}\n" % (ty, ty, fmt, ty, ty))
    np.save(work / (name + "_in.npy"), x)
    out = work / (name + "_out.npy")
    subprocess.run([qdq_run, str(mlir), "--device=" + DEVICE,
                    "--input=%s" % (work / (name + "_in.npy")),
                    "--output=%s" % out], check=True)
    return np.load(out)


def same_bits(a, b):
    """Equal bit for bit, except that any NaN equals any NaN."""
    nan = np.isnan(a) & np.isnan(b)
    return bool(np.all(nan | (a.view(np.uint32) == b.view(np.uint32))))


def main():
    np.seterr(all="ignore")  # infinities and NaN are inputs here
    global DEVICE
    qdq_run, work = sys.argv[1], Path(sys.argv[2])
    if len(sys.argv) > 3:
        DEVICE = sys.argv[3]
    rng = np.random.default_rng(0)
    random = (rng.standard_normal(4000) * 3).astype(np.float32)

    cases = []
    for rounding in ["nearest", "zero", "down", "stochastic"]:
        for bits, frac in [(8, 4), (16, 8), (4, 0), (6, -2)]:
            seed = 7 if rounding == "stochastic" else None
            fmt = "fixed_point, bits = %d, fraction_bits = %d, rounding = %s" % (
                bits, frac, rounding) + (", seed = 7" if seed else "")
            x = np.concatenate([hostile(frac), random])
            cases.append(("%s_%d_%d" % (rounding, bits, frac), fmt, x,
                          fixed_point(x, bits, frac, rounding, seed or 0)))
    x = np.concatenate([hostile(0), random])
    cases += [
        ("binary", "binary", x, binary(x, np.float32(1))),
        ("binary_m", "binary, marginal = 0.25", x, binary(x, np.float32(0.25))),
        ("ternary_th", "ternary, marginal = 0.5, threshold = 0.3", x,
         ternary(x, np.float32(0.5), np.float32(0.3))),
        ("logarithmic", "logarithmic", x, logarithmic(x)),
        ("sparse", "sparse, threshold = 0.3", x, sparse(x, np.float32(0.3))),
        ("half", "half", x, half(x)),
    ]
    finite = np.concatenate([random, [0.0, -0.0, 1e-40]]).astype(np.float32)
    cases.append(("ternary_auto", "ternary, marginal = 2.0", finite,
                  ternary(finite, np.float32(2.0))))
    for name, fmt, x, expected in cases:
        got = run(qdq_run, work, name, fmt, x)
        print("%s: %d values, bitwise %s" % (name, x.size,
                                              same_bits(got, expected)))

    # f64 and f16 tensors round in f32: the f32 result, converted back.
    wide = (rng.standard_normal(1000) * 3).astype(np.float64)
    got = run(qdq_run, work, "f64", "fixed_point, bits = 8, fraction_bits = 4",
              wide)
    expected = fixed_point(wide.astype(np.float32), 8, 4, "nearest")
    narrow = (rng.standard_normal(1000) * 3).astype(np.float16)
    got16 = run(qdq_run, work, "f16", "logarithmic", narrow)
    expected16 = logarithmic(narrow.astype(np.float32)).astype(np.float16)
    print("f64: %s, f16: %s" % (
        got.dtype == np.float64 and bool(np.all(got == expected)),
        got16.dtype == np.float16 and bool(np.all(got16 == expected16))))

    # Stochastic rounding keys on the flat position: a 2-D tensor rounds as
    # its flattening does, and a dynamic shape as the static one.
    grid = (rng.standard_normal((37, 53)) * 2).astype(np.float32)
    fmt = "fixed_point, bits = 8, fraction_bits = 3, rounding = stochastic, seed = 11"
    expected = fixed_point(grid, 8, 3, "stochastic", 11)
    static = run(qdq_run, work, "stoch_2d", fmt, grid)
    dynamic = run(qdq_run, work, "stoch_dyn", fmt, grid, "tensor<?x?xf32>")
    print("stochastic 2-D: static %s, dynamic %s" % (
        same_bits(static, expected), same_bits(dynamic, expected)))
    auto = run(qdq_run, work, "ternary_dyn", "ternary", grid, "tensor<?x53xf32>")
    print("ternary dynamic: %s" % same_bits(auto, ternary(grid, np.float32(1))))

    # Stochastic rounding is unbiased: 0.3 on a grid of 1 rounds up about
    # 30% of the time; runs repeat; another seed gives other draws.
    const = np.full(100000, 0.3, dtype=np.float32)
    fmt = "fixed_point, bits = 8, fraction_bits = 0, rounding = stochastic, seed = %d"
    a = run(qdq_run, work, "mean_a", fmt % 1, const)
    b = run(qdq_run, work, "mean_b", fmt % 1, const)
    c = run(qdq_run, work, "mean_c", fmt % 2, const)
    print("stochastic mean %.3f, repeatable %s, other seed differs %s" % (
        a.mean(), same_bits(a, b), not same_bits(a, c)))


if __name__ == "__main__":
    main()
