#!/usr/bin/env python3
"""Fake-quant GPU kernels from a qdq-translate manifest, against a device copy
and PyTorch, on the same tensors in the same process.

    run_bench.py MANIFEST.json [--out RESULTS.md]     (needs a CUDA device)
    run_bench.py MANIFEST.json --dry-run              (needs nothing)

MANIFEST.json is what `qdq-translate --export-gpu-kernels` writes (see
bench/gpu/README.md for the schema and the kernel ABI). For each kernel:

  ours   the manifest's kernel, launched by pointer with the manifest's grid,
         block and dynamic shared memory (CuPy, or cuda-bindings with
         --launcher driver);
  copy   a device-to-device copy of the input bytes (torch copy_), the
         bandwidth a memory-bound kernel can at best reach;
  torch  torch.fake_quantize_per_tensor_affine / _per_channel_affine on the
         same tensor (fake_quant kernels only).

Bytes are what each one must move: ours reads every input-role argument
(input, grad, scale, zero_point) and writes the output once; copy reads and
writes the input bytes; torch is given the same byte count as ours (its
kernel also writes a one-byte mask per element, not counted). GB/s is 10^9
bytes per second. Each figure is the median over --reps measurements; each
measurement times (with CUDA events) K back-to-back operations captured in a
CUDA graph, K chosen so a measurement lasts about --target-ms. Unless --hot
is given, consecutive operations cycle through enough copies of the buffers
that the footprint is four times the L2 cache, so every size is measured from
HBM rather than from L2.

Before timing, the kernel's output is compared bit for bit with a PyTorch
reference on the same data (division semantics: q = clamp(round_half_even(x
/ s) + zp, qmin, qmax), NaN -> zp, y = (q - zp) * s in f32, rounded to the
output type). The input holds normal samples scaled so that about 1.2% of
them saturate, plus NaN, +-inf, +-0 and ties. Any mismatch is reported with
examples and makes the exit status 1.

--dry-run validates the manifest (schema, roles and dtypes per op, shapes
against the function name's byte size, scale/zero-point lengths against the
axis, base64 and object kind, kernel symbols, launch limits, and that the
grid covers the tensor) and prints what a GPU run would measure. It imports
only the standard library. Figures only: nothing here asserts a time.
"""

import argparse
import base64
import binascii
import datetime
import hashlib
import json
import math
import os
import re
import statistics
import struct
import subprocess
import sys

# ---------------------------------------------------------------------------
# The benchmark set (shared with gen_mlir.py and standin_kernels.py).

SIZES = [1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30]
CHANNELS = 64
PLANE = (64, 64)  # H, W
# (short name in function names, manifest dtype, MLIR element type)
BENCH_DTYPES = [("f32", "float32", "f32"), ("bf16", "bfloat16", "bf16")]
PER_TENSOR_SCALE = 0.0472  # 1/s is not a short binary fraction (1/0.05 rounds to 20)
QUANTIZER = {"bits": 8, "signed": True, "narrow_range": True,
             "qmin": -127, "qmax": 127}
# The formats beyond int8 (issue 16): FP8 E4M3FN per tensor, over the same
# sizes; int4 weights in blocks of BLOCK along the rows of a [rows, 4096]
# matrix (a Gemm weight's layout), up to 64 MiB (the scales are constants
# of the MLIR: one per block).
BLOCK = 128
BLOCKED_ROW = 4096
BLOCKED_SIZES = [s for s in SIZES if s <= 64 << 20]
# TensorQuant's formats (round_to_format), on [N, 64, 64, 64]: the short
# name in function names, the MLIR format. Their reference is NumPy on the
# host (test/Execution/Inputs/number_formats.py), hence the smaller sizes.
FORMATS_SET = [
    ("nearest8_4", "fixed_point, bits = 8, fraction_bits = 4, rounding = nearest"),
    ("stochastic8_4", "fixed_point, bits = 8, fraction_bits = 4, rounding = stochastic, seed = 1"),
    ("binary", "binary"),
    ("ternary", "ternary"),
    ("log", "logarithmic"),
    ("half", "half"),
]
FORMAT_SIZES = [4 << 20, 64 << 20, 256 << 20]


def f32(v):
    """The float32 nearest v, as a Python float (exactly representable)."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def default_scales(channels, per_channel):
    """The scales gen_mlir.py writes into the MLIR, and that the runner uses
    when the manifest carries no "values" for the scale argument. Not powers
    of two, so that x / s rounds and division semantics are exercised."""
    if not per_channel:
        return [f32(PER_TENSOR_SCALE)]
    return [f32(PER_TENSOR_SCALE * (0.5 + c / channels)) for c in range(channels)]


def size_label(nbytes):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= (1 << shift) and nbytes % (1 << shift) == 0:
            return "%d%s" % (nbytes >> shift, unit)
    return "%dB" % nbytes


def blocked_scales(count):
    """The scales of the blocked functions: the per-channel pattern, repeated."""
    pattern = default_scales(CHANNELS, True)
    return [pattern[i % CHANNELS] for i in range(count)]


def bench_set():
    """Every function of the benchmark: fq_<dtype>_<layout>_<size>, layout
    pt (int8 per tensor), pc (int8 per channel), e4m3 (FP8 per tensor) or
    b128 (int4 in blocks of 128), "quantizer" being the MLIR quantizer of
    its fake_quant; and rtf_<dtype>_<format>_<size>, one round_to_format
    of "format"."""
    out = []
    for short, dtype, mlir in BENCH_DTYPES:
        elsize = DTYPE_SIZE[dtype]
        for layout in ("pt", "pc", "e4m3"):
            for nbytes in SIZES:
                n = nbytes // (elsize * CHANNELS * PLANE[0] * PLANE[1])
                per_channel = layout == "pc"
                out.append({
                    "function": "fq_%s_%s_%s" % (short, layout, size_label(nbytes)),
                    "dtype": dtype, "mlir_type": mlir,
                    "shape": [n, CHANNELS, PLANE[0], PLANE[1]],
                    "axis": 1 if per_channel else None,
                    "quantizer": {"pt": "<bits = 8>", "pc": "<bits = 8, axis = 1>",
                                  "e4m3": "<bits = 8, storage = e4m3fn>"}[layout],
                    "scales": default_scales(CHANNELS, per_channel),
                })
        for name, fmt in FORMATS_SET:
            for nbytes in FORMAT_SIZES:
                n = nbytes // (elsize * CHANNELS * PLANE[0] * PLANE[1])
                out.append({
                    "function": "rtf_%s_%s_%s" % (short, name, size_label(nbytes)),
                    "op": "round_to_format", "format": fmt,
                    "dtype": dtype, "mlir_type": mlir,
                    "shape": [n, CHANNELS, PLANE[0], PLANE[1]],
                })
        for nbytes in BLOCKED_SIZES:
            rows = nbytes // (elsize * BLOCKED_ROW)
            out.append({
                "function": "fq_%s_b%d_%s" % (short, BLOCK, size_label(nbytes)),
                "dtype": dtype, "mlir_type": mlir, "shape": [rows, BLOCKED_ROW],
                "axis": 1,
                "quantizer": "<bits = 4, axis = 1, block_size = %d>" % BLOCK,
                "scales": blocked_scales(rows * BLOCKED_ROW // BLOCK),
            })
    return out


# ---------------------------------------------------------------------------
# Manifest validation (standard library only).

DTYPE_SIZE = {"float32": 4, "bfloat16": 2, "float16": 2,
              "int8": 1, "uint8": 1, "int32": 4, "float8_e4m3fn": 1,
              "int4": 1, "uint4": 1}  # sub-byte integers: one a byte
FLOAT_DTYPES = ("float32", "bfloat16", "float16")
INT_RANGE = {"int8": (-128, 127), "uint8": (0, 255), "int4": (-8, 7), "uint4": (0, 15),
             "int32": (-(1 << 31), (1 << 31) - 1)}
SHORT_DTYPE = {"float32": "f32", "bfloat16": "bf16", "float16": "f16",
               "int8": "i8", "uint8": "u8", "int32": "i32", "float8_e4m3fn": "e4m3fn",
               "int4": "i4", "uint4": "u4"}
E4M3FN_MAX = 448
FORMATS = ("bin", "isa", "fatbin")
# op -> (required roles, optional roles); the order is the manifest's.
ROLES = {
    "fake_quant": (("input", "output", "scale"), ("reciprocal", "zero_point")),
    "fake_quant_grad": (("input", "grad", "output", "scale"), ("reciprocal", "zero_point")),
    "quantize": (("input", "output", "scale"), ("reciprocal", "zero_point")),
    "dequantize": (("input", "output", "scale"), ("reciprocal", "zero_point")),
    "round_to_format": (("input", "output"), ("threshold",)),
}
READ_ROLES = ("input", "grad", "scale", "reciprocal", "zero_point", "threshold")
NAME_RE = re.compile(r"^fq_(f32|bf16|f16)_(pt|pc|e4m3|b\d+)_(\d+)(KiB|MiB|GiB)$")
FORMAT_NAME_RE = re.compile(r"^rtf_(f32|bf16|f16)_([a-z0-9_]+)_(\d+)(KiB|MiB|GiB)$")
# round_to_format kinds (the manifest's "format": {"kind", "name"}).
FORMAT_KINDS = ("fixed_point", "binary", "ternary", "logarithmic", "sparse", "half")
UNIT = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
MAX_SHARED_SM90 = 227 * 1024
ELF_MAGIC = b"\x7fELF"
EM_CUDA = 190
FATBIN_MAGIC = struct.pack("<I", 0xBA55ED50)


class Invalid(Exception):
    pass


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _dims(v, what, n=None, positive=True):
    if not isinstance(v, list) or (n is not None and len(v) != n) or \
            not all(_is_int(d) and (d > 0 if positive else d >= 0) for d in v):
        want = "%d positive integers" % n if n else "a list of positive integers"
        raise Invalid("%s must be %s, got %s" % (what, want, json.dumps(v)))
    return v


def _prod(v):
    p = 1
    for d in v:
        p *= d
    return p


def _need(obj, key, kind, where):
    if not isinstance(obj, dict) or key not in obj:
        raise Invalid("%s: missing \"%s\"" % (where, key))
    v = obj[key]
    ok = {"str": lambda x: isinstance(x, str) and x != "",
          "list": lambda x: isinstance(x, list),
          "dict": lambda x: isinstance(x, dict),
          "int": _is_int,
          "bool": lambda x: isinstance(x, bool)}[kind](v)
    if not ok:
        raise Invalid("%s: \"%s\" must be a %s, got %s" % (
            where, key, {"str": "non-empty string", "list": "list",
                         "dict": "object", "int": "integer",
                         "bool": "boolean"}[kind], json.dumps(v)[:80]))
    return v


def storage_range(bits, signed, narrow):
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return lo + (1 if narrow else 0), hi


def check_object(i, o, fmt, chip):
    where = "objects[%d]" % i
    module = _need(o, "module", "str", where)
    where = "objects[%d] (%s)" % (i, module)
    data = _need(o, "data", "str", where)
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as e:
        raise Invalid("%s: \"data\" is not valid base64 (%s)" % (where, e))
    if not raw:
        raise Invalid("%s: \"data\" decodes to 0 bytes" % where)
    info = {"module": module, "bytes": raw, "kind": fmt, "notes": []}
    if fmt == "bin":
        if raw[:4] != ELF_MAGIC:
            raise Invalid("%s: format is \"bin\" but the data is not an ELF cubin "
                          "(starts with %r)" % (where, raw[:8]))
        if len(raw) >= 20 and struct.unpack("<H", raw[18:20])[0] != EM_CUDA:
            raise Invalid("%s: ELF machine is %d, not EM_CUDA (190)" % (
                where, struct.unpack("<H", raw[18:20])[0]))
    elif fmt == "fatbin":
        if raw[:4] != FATBIN_MAGIC:
            raise Invalid("%s: format is \"fatbin\" but the data does not start "
                          "with the fatbin magic 0xBA55ED50 (starts with %r)" % (where, raw[:8]))
    else:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Invalid("%s: format is \"isa\" but the data is not PTX text "
                          "(not UTF-8)" % where)
        if ".entry" not in text:
            raise Invalid("%s: format is \"isa\" but the PTX has no .entry" % where)
        m = re.search(r"^\s*\.target\s+(sm_\w+)", text, re.M)
        if m and m.group(1) != chip:
            info["notes"].append("PTX .target is %s, manifest chip is %s" % (m.group(1), chip))
    return info


def symbol_present(obj, kernel):
    """True/False when the object can be searched, None when it cannot."""
    if obj["kind"] == "isa":
        return re.search(r"\.entry\s+%s\s*\(" % re.escape(kernel),
                         obj["bytes"].decode("utf-8")) is not None
    if obj["kind"] == "bin":
        return (b"\0" + kernel.encode() + b"\0") in obj["bytes"]
    return None  # fatbin images may be compressed


def check_kernel(i, k, objects, chip):
    where = "kernels[%d]" % i
    function = _need(k, "function", "str", where)
    where = "kernels[%d] (%s)" % (i, function)
    op = _need(k, "op", "str", where)
    if op not in ROLES:
        raise Invalid("%s: unknown op \"%s\" (expected one of %s)" % (where, op, ", ".join(ROLES)))
    module = _need(k, "module", "str", where)
    if module not in objects:
        raise Invalid("%s: module \"%s\" is not among the objects (%s)" % (
            where, module, ", ".join(objects) or "none"))
    kernel = _need(k, "kernel", "str", where)
    grid = _dims(_need(k, "grid", "list", where), where + ": \"grid\"", 3)
    block = _dims(_need(k, "block", "list", where), where + ": \"block\"", 3)
    shared = _need(k, "shared_bytes", "int", where)
    if shared < 0 or shared > MAX_SHARED_SM90:
        raise Invalid("%s: shared_bytes %d is outside [0, %d]" % (where, shared, MAX_SHARED_SM90))
    if grid[0] > (1 << 31) - 1 or grid[1] > 65535 or grid[2] > 65535:
        raise Invalid("%s: grid %s exceeds the CUDA limits [2^31-1, 65535, 65535]" % (where, grid))
    if block[0] > 1024 or block[1] > 1024 or block[2] > 64 or _prod(block) > 1024:
        raise Invalid("%s: block %s exceeds the CUDA limits (x, y <= 1024, z <= 64, "
                      "x*y*z <= 1024)" % (where, block))

    if op == "round_to_format":
        return check_format_kernel(k, where, function, op, module, kernel, grid, block,
                                   shared, objects)
    qz = _need(k, "quantizer", "dict", where)
    qw = where + ": quantizer"
    bits = _need(qz, "bits", "int", qw)
    signed = _need(qz, "signed", "bool", qw)
    narrow = _need(qz, "narrow_range", "bool", qw)
    if "axis" not in qz:
        raise Invalid("%s: missing \"axis\" (null for per-tensor)" % qw)
    axis = qz["axis"]
    if axis is not None and not _is_int(axis):
        raise Invalid("%s: \"axis\" must be null or an integer, got %s" % (qw, json.dumps(axis)))
    qmin = _need(qz, "qmin", "int", qw)
    qmax = _need(qz, "qmax", "int", qw)
    storage = qz.get("storage", "int")
    if storage not in ("int", "e4m3fn"):
        raise Invalid("%s: storage %s is not \"int\" or \"e4m3fn\"" % (qw, json.dumps(storage)))
    fp8 = storage == "e4m3fn"
    block_size = qz.get("block_size")
    if block_size is not None and (not _is_int(block_size) or block_size < 1 or axis is None):
        raise Invalid("%s: block_size %s must be a positive integer, with an axis" % (
            qw, json.dumps(block_size)))
    if not 2 <= bits <= 16 or (fp8 and bits != 8):
        raise Invalid("%s: bits %d is outside %s" % (qw, bits, "8 (e4m3fn)" if fp8 else "2..16"))
    lo, hi = (-E4M3FN_MAX, E4M3FN_MAX) if fp8 else storage_range(bits, signed, narrow)
    if (qmin, qmax) != (lo, hi):
        raise Invalid("%s: qmin/qmax [%d, %d] disagree with %s, which give%s [%d, %d]" % (
                          qw, qmin, qmax, "storage e4m3fn" if fp8 else
                          "bits = %d, signed = %s, narrow_range = %s" % (
                              bits, str(signed).lower(), str(narrow).lower()),
                          "s" if fp8 else "", lo, hi))

    roles, by_role = parse_args(k, where)
    required, optional = ROLES[op]
    unknown = [r for r in roles if r not in required + optional]
    missing = [r for r in required if r not in roles]
    if unknown or missing:
        raise Invalid("%s: a %s kernel takes roles %s%s; got %s" % (
            where, op, ", ".join(required),
            " [+ " + ", ".join(optional) + "]" if optional else "", ", ".join(roles) or "none"))

    x, y = by_role["input"], by_role["output"]
    rank = len(x["shape"])
    for r in ("output", "grad"):
        if r in by_role and by_role[r]["shape"] != x["shape"]:
            raise Invalid("%s: %s shape %s differs from input shape %s" % (
                where, r, by_role[r]["shape"], x["shape"]))
    float_in = op in ("fake_quant", "fake_quant_grad", "quantize")
    if float_in and x["dtype"] not in FLOAT_DTYPES:
        raise Invalid("%s: a %s input must be a float type, got %s" % (where, op, x["dtype"]))
    if op in ("fake_quant", "fake_quant_grad") and y["dtype"] != x["dtype"]:
        raise Invalid("%s: output dtype %s differs from input dtype %s" % (where, y["dtype"], x["dtype"]))
    if op == "fake_quant_grad" and by_role["grad"]["dtype"] != x["dtype"]:
        raise Invalid("%s: grad dtype %s differs from input dtype %s" % (
            where, by_role["grad"]["dtype"], x["dtype"]))
    int_side = y if op == "quantize" else x if op == "dequantize" else None
    if int_side is not None and fp8:
        if int_side["dtype"] != "float8_e4m3fn":
            raise Invalid("%s: the stored side of an e4m3fn %s must be float8_e4m3fn, got %s" % (
                where, op, int_side["dtype"]))
    elif int_side is not None:
        if int_side["dtype"] not in INT_RANGE:
            raise Invalid("%s: the stored side of %s must be an integer type, got %s" % (
                where, op, int_side["dtype"]))
        tlo, thi = INT_RANGE[int_side["dtype"]]
        if qmin < tlo or qmax > thi:
            raise Invalid("%s: [%d, %d] does not fit %s" % (where, qmin, qmax, int_side["dtype"]))
    if op == "dequantize" and y["dtype"] not in FLOAT_DTYPES:
        raise Invalid("%s: a dequantize output must be a float type, got %s" % (where, y["dtype"]))
    if axis is not None and not 0 <= axis < rank:
        raise Invalid("%s: axis %d is outside the rank %d of the input" % (qw, axis, rank))
    # Parameter tables: [1] per tensor, [C] per channel, the input's shape
    # with ceil(C / block_size) along the axis per block.
    if axis is None:
        table = [1]
    elif block_size is None:
        table = [x["shape"][axis]]
    else:
        table = list(x["shape"])
        table[axis] = -(-table[axis] // block_size)
    channels = _prod(table)
    for r in ("scale", "reciprocal", "zero_point"):
        if r in by_role:
            e = by_role[r]
            if e["dtype"] != "float32" or e["shape"] != table:
                raise Invalid("%s: %s must be float32%s (%s), got %s%s" % (
                    where, r, table,
                    "per tensor" if axis is None else
                    "dimension %d of the input" % axis if block_size is None else
                    "blocks of %d along dimension %d" % (block_size, axis),
                    e["dtype"], e["shape"]))
    if "values" in by_role["scale"]:
        bad = [v for v in by_role["scale"]["values"] if not (v > 0 and math.isfinite(v))]
        if bad:
            raise Invalid("%s: scale values must be positive and finite, got %s" % (where, bad[0]))
    if "zero_point" in by_role and "values" in by_role["zero_point"]:
        if fp8 and any(v != 0 for v in by_role["zero_point"]["values"]):
            raise Invalid("%s: e4m3fn zero points must be 0" % where)
        for v in by_role["zero_point"]["values"]:
            if v != int(v) or not qmin <= v <= qmax:
                raise Invalid("%s: zero point %s is not an integer in [%d, %d]" % (where, v, qmin, qmax))

    m = NAME_RE.match(function)
    if m:
        short, layout, count, unit = m.groups()
        check_name(where, short, count, unit, x)
        # (has an axis, block size, FP8) as the name says and as the quantizer is.
        said = {"pt": (False, None, False), "pc": (True, None, False),
                "e4m3": (False, None, True)}.get(layout) or (True, int(layout[1:]), False)
        if said != (axis is not None, block_size, fp8):
            raise Invalid("%s: the name says %s but the quantizer has axis %s, block_size %s, "
                          "storage %s" % (where, layout, "null" if axis is None else axis,
                                          "null" if block_size is None else block_size, storage))

    threads, ept, grid_stride, present = check_launch(where, k, grid, block, x, objects,
                                                      module, kernel)

    return {
        "function": function, "op": op, "module": module, "kernel": kernel,
        "grid": grid, "block": block, "shared_bytes": shared, "args": [by_role[r] for r in roles],
        "roles": by_role, "dtype": x["dtype"], "out_dtype": y["dtype"], "shape": x["shape"],
        "numel": x["numel"], "axis": axis, "channels": channels, "table": table, "block_size": block_size,
        "fp8": fp8, "format": None, "bits": bits, "signed": signed,
        "narrow_range": narrow, "qmin": qmin, "qmax": qmax, "threads": threads,
        "elements_per_thread": ept, "grid_stride": grid_stride, "symbol_checked": present,
        "bytes_ours": sum(by_role[r]["bytes"] for r in roles),
        "input_bytes": x["bytes"],
    }


def parse_args(k, where):
    """A kernel's arguments: their roles in order, and each role's entry
    (dtype, shape, element and byte counts, and "values" where given)."""
    roles, by_role = [], {}
    for j, a in enumerate(_need(k, "args", "list", where)):
        aw = "%s: args[%d]" % (where, j)
        role = _need(a, "role", "str", aw)
        dtype = _need(a, "dtype", "str", aw)
        if dtype not in DTYPE_SIZE:
            raise Invalid("%s: unknown dtype \"%s\" (expected one of %s)" % (
                aw, dtype, ", ".join(DTYPE_SIZE)))
        shape = _dims(_need(a, "shape", "list", aw), aw + ": \"shape\"")
        if role in by_role:
            raise Invalid("%s: role \"%s\" appears twice" % (aw, role))
        entry = {"role": role, "dtype": dtype, "shape": shape,
                 "numel": _prod(shape), "bytes": _prod(shape) * DTYPE_SIZE[dtype]}
        if "values" in a:
            vals = a["values"]
            if not isinstance(vals, list) or len(vals) != entry["numel"] or \
                    not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
                raise Invalid("%s: \"values\" must be %d numbers" % (aw, entry["numel"]))
            entry["values"] = [float(v) for v in vals]
        roles.append(role)
        by_role[role] = entry
    return roles, by_role


def check_name(where, short, count, unit, x):
    """That a benchmark function's name tells the input's dtype and size."""
    if SHORT_DTYPE[x["dtype"]] != short:
        raise Invalid("%s: the name says %s but the input is %s" % (where, short, x["dtype"]))
    if x["bytes"] != int(count) * UNIT[unit]:
        raise Invalid("%s: the name says %s%s of input but shape %s of %s is %d bytes" % (
            where, count, unit, x["shape"], x["dtype"], x["bytes"]))


def check_launch(where, k, grid, block, x, objects, module, kernel):
    """That the launch covers the input and the object holds the kernel:
    (threads, elements per thread, whether it is a grid-stride loop,
    whether the symbol was found; None where it cannot be told)."""
    ept = k.get("elements_per_thread", 1)
    if not _is_int(ept) or ept < 1:
        raise Invalid("%s: \"elements_per_thread\" must be a positive integer" % where)
    grid_stride = k.get("grid_stride", False)
    if not isinstance(grid_stride, bool):
        raise Invalid("%s: \"grid_stride\" must be a boolean" % where)
    threads = _prod(grid) * _prod(block)
    if not grid_stride and threads * ept < x["numel"]:
        raise Invalid("%s: grid %s x block %s = %d threads x %d element(s) per thread "
                      "covers %d of the %d elements of input %s" % (
                          where, grid, block, threads, ept, threads * ept, x["numel"],
                          x["shape"]))
    present = symbol_present(objects[module], kernel)
    if present is False:
        raise Invalid("%s: kernel symbol \"%s\" is not in object \"%s\" (%s)" % (
            where, kernel, module, objects[module]["kind"]))
    return threads, ept, grid_stride, present


def parse_format(fmt, where):
    """The manifest's "format" of a round_to_format kernel: its kind and the
    parameters its TensorQuant name carries (e.g. "stochastic,8,4,1")."""
    kind = _need(fmt, "kind", "str", where)
    name = _need(fmt, "name", "str", where)
    if kind not in FORMAT_KINDS:
        raise Invalid("%s: unknown format kind \"%s\" (expected one of %s)" % (
            where, kind, ", ".join(FORMAT_KINDS)))
    parts = name.split(",")
    try:
        nums = [float(p) for p in parts[1:]]
    except ValueError:
        raise Invalid("%s: format name \"%s\" is not TensorQuant's" % (where, name))
    out = {"kind": kind, "name": name}
    if kind == "fixed_point":
        if parts[0] not in ("nearest", "zero", "down", "stochastic") or \
                len(nums) != (3 if parts[0] == "stochastic" else 2):
            raise Invalid("%s: fixed_point name \"%s\" is not <rounding>,<bits>,<fraction>"
                          "[,<seed>]" % (where, name))
        out.update(rounding=parts[0], bits=int(nums[0]), fraction=int(nums[1]),
                   seed=int(nums[2]) if len(nums) > 2 else 0)
    elif kind in ("binary", "ternary"):
        out.update(marginal=nums[0] if nums else 1.0,
                   threshold=nums[1] if len(nums) > 1 else None)
    elif kind == "sparse":
        if len(nums) != 1:
            raise Invalid("%s: sparse name \"%s\" is not sparse,<threshold>" % (where, name))
        out.update(threshold=nums[0])
    return out


def check_format_kernel(k, where, function, op, module, kernel, grid, block, shared,
                        objects):
    """check_kernel for round_to_format: input, output and, for ternary
    without a threshold, threshold[1] (0.7 * mean|input|, computed by the
    caller before each launch)."""
    fmt = parse_format(_need(k, "format", "dict", where), where + ": format")
    roles, by_role = parse_args(k, where)
    needs_threshold = fmt["kind"] == "ternary" and fmt["threshold"] is None
    want = ["input", "output"] + (["threshold"] if needs_threshold else [])
    if roles != want:
        raise Invalid("%s: a %s round_to_format kernel takes roles %s; got %s" % (
            where, fmt["kind"], ", ".join(want), ", ".join(roles) or "none"))
    x, y = by_role["input"], by_role["output"]
    if x["dtype"] not in FLOAT_DTYPES or y["dtype"] != x["dtype"] or y["shape"] != x["shape"]:
        raise Invalid("%s: input and output must be the same float type and shape, got %s%s "
                      "and %s%s" % (where, x["dtype"], x["shape"], y["dtype"], y["shape"]))
    if needs_threshold and (by_role["threshold"]["dtype"] != "float32" or
                            by_role["threshold"]["shape"] != [1]):
        raise Invalid("%s: threshold must be float32[1]" % where)
    m = FORMAT_NAME_RE.match(function)
    if m:
        short, _, count, unit = m.groups()
        check_name(where, short, count, unit, x)
    threads, ept, grid_stride, present = check_launch(where, k, grid, block, x, objects,
                                                      module, kernel)
    return {
        "function": function, "op": op, "module": module, "kernel": kernel,
        "grid": grid, "block": block, "shared_bytes": shared, "args": [by_role[r] for r in roles],
        "roles": by_role, "dtype": x["dtype"], "out_dtype": y["dtype"], "shape": x["shape"],
        "numel": x["numel"], "axis": None, "channels": 1, "table": [1], "block_size": None,
        "fp8": False, "format": fmt, "bits": None, "signed": None, "narrow_range": None,
        "qmin": None, "qmax": None, "threads": threads, "elements_per_thread": ept,
        "grid_stride": grid_stride, "symbol_checked": present,
        "bytes_ours": sum(by_role[r]["bytes"] for r in roles), "input_bytes": x["bytes"],
    }


def load_manifest(path):
    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError as e:
        raise Invalid("cannot read the manifest: %s" % e.strerror)
    try:
        m = json.loads(text)
    except ValueError as e:
        raise Invalid("not JSON: %s" % e)
    if not isinstance(m, dict):
        raise Invalid("the manifest must be a JSON object")
    chip = _need(m, "chip", "str", "manifest")
    if not re.match(r"^sm_\d+[af]?$", chip):
        raise Invalid("manifest: chip \"%s\" is not an NVIDIA target like sm_90" % chip)
    fmt = _need(m, "format", "str", "manifest")
    if fmt not in FORMATS:
        raise Invalid("manifest: format \"%s\" is not one of %s" % (fmt, ", ".join(FORMATS)))
    objs = _need(m, "objects", "list", "manifest")
    kerns = _need(m, "kernels", "list", "manifest")
    if not objs:
        raise Invalid("manifest: \"objects\" is empty")
    if not kerns:
        raise Invalid("manifest: \"kernels\" is empty")
    objects = {}
    for i, o in enumerate(objs):
        info = check_object(i, o, fmt, chip)
        if info["module"] in objects:
            raise Invalid("objects[%d]: module \"%s\" appears twice" % (i, info["module"]))
        objects[info["module"]] = info
    kernels = []
    seen = set()
    for i, k in enumerate(kerns):
        spec = check_kernel(i, k, objects, chip)
        key = (spec["function"], spec["module"], spec["kernel"])
        if key in seen:
            raise Invalid("kernels[%d] (%s): kernel %s of module %s is listed twice" % (
                i, spec["function"], spec["kernel"], spec["module"]))
        seen.add(key)
        kernels.append(spec)
    extra = sorted(set(m) - {"chip", "format", "objects", "kernels"})
    return {"chip": chip, "format": fmt, "objects": objects, "kernels": kernels,
            "extra_keys": extra, "sha256": hashlib.sha256(text).hexdigest()}


# ---------------------------------------------------------------------------
# What a run measures.

def layout_of(k):
    if k["format"]:
        return "TensorQuant %s (%s)" % (k["format"]["kind"], k["format"]["name"])
    if k["fp8"]:
        return "FP8 e4m3fn per-tensor" if k["axis"] is None else \
            "FP8 e4m3fn per-channel (axis %d)" % k["axis"]
    if k["block_size"]:
        return "int%d blocks of %d (axis %d)" % (k["bits"], k["block_size"], k["axis"])
    return "per-tensor" if k["axis"] is None else "per-channel (axis %d)" % k["axis"]


def torch_baseline_name(k):
    """PyTorch's nearest equivalent: its fused fake quantization; for
    blocks, the per-channel one over the [blocks, block] view (when the
    blocked axis is the innermost and the blocks divide it); for FP8, which
    it has no fake quantization for, the eager chain div, clamp, cast to
    float8_e4m3fn and back, mul."""
    if k["op"] != "fake_quant":
        return None
    if k["fp8"]:
        return "torch eager (div, clamp, to float8_e4m3fn, to float, mul)" \
            if k["axis"] is None else None
    if k["block_size"]:
        innermost = k["axis"] == len(k["shape"]) - 1
        if not innermost or k["shape"][k["axis"]] % k["block_size"]:
            return None
        return "torch.fake_quantize_per_channel_affine on the [blocks, %d] view" % k["block_size"]
    return ("torch.fake_quantize_per_tensor_affine" if k["axis"] is None
            else "torch.fake_quantize_per_channel_affine")


MAX_ROTATION = 1024


def rotation_sets(k, l2_bytes, hot):
    """Buffer sets cycled through so that consecutive operations touch four
    times the L2 size (at most MAX_ROTATION sets: tiny tensors stay in L2,
    where launch latency bounds them anyway)."""
    if hot:
        return 1
    return max(1, min(MAX_ROTATION, -(-4 * l2_bytes // k["bytes_ours"])))


def fmt_int(n):
    return "{:,}".format(n)


def print_plan(man, l2_bytes, hot, out=sys.stdout):
    w = out.write
    w("manifest: chip %s, format %s, %d object(s), %d kernel(s), sha256 %s\n" % (
        man["chip"], man["format"], len(man["objects"]), len(man["kernels"]), man["sha256"][:16]))
    if man["extra_keys"]:
        w("note: top-level keys not in the schema, ignored: %s\n" % ", ".join(man["extra_keys"]))
    for name, o in man["objects"].items():
        w("object %s: %s, %s bytes%s\n" % (
            name, {"bin": "cubin", "isa": "PTX", "fatbin": "fatbin"}[o["kind"]],
            fmt_int(len(o["bytes"])), "".join("; note: " + n for n in o["notes"])))
    for k in man["kernels"]:
        r = rotation_sets(k, l2_bytes, hot)
        parts = " + ".join("%s %s" % (a["role"], fmt_int(a["bytes"])) for a in k["args"])
        w("kernel %s: %s %s %s %s, %s\n" % (
            k["function"], k["op"], k["dtype"] if k["op"] != "dequantize" else
            "%s->%s" % (k["dtype"], k["out_dtype"]),
            "x".join(map(str, k["shape"])), layout_of(k), size_label(k["input_bytes"])))
        w("  ours:  %s.%s, args (%s), %s bytes moved (%s)\n" % (
            k["module"], k["kernel"], ", ".join(a["role"] for a in k["args"]),
            fmt_int(k["bytes_ours"]), parts))
        cover = ("grid-stride loop" if k["grid_stride"] else
                 "covers %s of %s elements" % (fmt_int(k["threads"] * k["elements_per_thread"]),
                                               fmt_int(k["numel"])))
        w("  launch: grid %s block %s shared %d = %s threads x %d element(s)/thread, %s\n" % (
            k["grid"], k["block"], k["shared_bytes"], fmt_int(k["threads"]),
            k["elements_per_thread"], cover))
        w("  copy:  %s bytes (input read + written)\n" % fmt_int(2 * k["input_bytes"]))
        t = torch_baseline_name(k)
        w("  torch: %s\n" % ("%s (%s)" % (t, k["dtype"]) if t else "none for %s" % k["op"]))
        w("  check: %s\n" % (
            "bitwise (any NaN equal to any NaN) against NumPy's TensorQuant reference"
            if k["format"] else
            "bitwise against the division-semantics reference, " + (
                "E4M3FN, saturated to [-448, 448]" if k["fp8"] else
                "q in [%d, %d]" % (k["qmin"], k["qmax"]))))
        w("  rotation: %d buffer set(s)%s\n" % (r, " (--hot)" if hot else ""))
    w("planned: %d kernel(s) x (ours, copy%s), largest working set about %.2f GiB\n" % (
        len(man["kernels"]),
        ", torch" if any(torch_baseline_name(k) for k in man["kernels"]) else "",
        max(rotation_sets(k, l2_bytes, hot) * k["bytes_ours"] + 4 * k["input_bytes"]
            for k in man["kernels"]) / (1 << 30)))


# ---------------------------------------------------------------------------
# GPU mode. Everything below imports numpy/torch/cupy lazily.

class Launcher:
    """Loads module images and launches kernels by pointer arguments."""


class CupyLauncher(Launcher):
    name = "cupy"

    def __init__(self):
        import cupy
        import numpy as np
        self.cupy, self.np = cupy, np
        self.version = "cupy " + cupy.__version__
        self._streams = {}

    def load(self, image):
        from cupy.cuda import function
        m = function.Module()
        m.load(bytes(image) + b"\0")  # PTX must end in NUL; cubins ignore it
        return m

    def function(self, module, name, shared):
        f = module.get_function(name)
        if shared > 48 * 1024:
            drv = self.cupy.cuda.driver
            attr = getattr(drv, "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", 8)
            drv.funcSetAttribute(f.ptr, attr, shared)
        return f

    def prepare(self, f, grid, block, shared, ptrs):
        args = tuple(self.np.uint64(p) for p in ptrs)
        grid, block = tuple(grid), tuple(block)
        streams = self._streams
        ExternalStream = self.cupy.cuda.ExternalStream

        def launch(stream_ptr):
            s = streams.get(stream_ptr)
            if s is None:
                s = streams[stream_ptr] = ExternalStream(stream_ptr)
            f(grid, block, args, shared_mem=shared, stream=s)
        return launch


class DriverLauncher(Launcher):
    name = "driver"

    def __init__(self):
        import numpy as np
        try:
            from cuda.bindings import driver as cu
        except ImportError:
            from cuda import cuda as cu  # cuda-python before 12.6
        self.cu, self.np = cu, np
        try:
            from cuda import bindings
            self.version = "cuda-bindings " + bindings.__version__
        except Exception:
            self.version = "cuda-python"
        self._check(cu.cuInit(0))
        ctx = self._check(cu.cuCtxGetCurrent())
        if ctx is None or int(ctx) == 0:
            dev = self._check(cu.cuDeviceGet(0))
            ctx = self._check(cu.cuDevicePrimaryCtxRetain(dev))
            self._check(cu.cuCtxSetCurrent(ctx))

    def _check(self, result):
        err = result[0]
        if err != self.cu.CUresult.CUDA_SUCCESS:
            _, msg = self.cu.cuGetErrorString(err)
            raise RuntimeError("CUDA driver error %s: %s" % (
                getattr(err, "name", err), msg.decode() if isinstance(msg, bytes) else msg))
        return result[1] if len(result) == 2 else result[1:] or None

    def load(self, image):
        buf = self.np.frombuffer(bytes(image) + b"\0", dtype=self.np.uint8)
        return self._check(self.cu.cuModuleLoadData(buf.ctypes.data))

    def function(self, module, name, shared):
        f = self._check(self.cu.cuModuleGetFunction(module, name.encode()))
        if shared > 48 * 1024:
            self._check(self.cu.cuFuncSetAttribute(
                f, self.cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared))
        return f

    def prepare(self, f, grid, block, shared, ptrs):
        np, cu, check = self.np, self.cu, self._check
        vals = np.array(ptrs, dtype=np.uint64)
        addrs = np.array([vals.ctypes.data + 8 * i for i in range(len(ptrs))], dtype=np.uint64)
        params = addrs.ctypes.data
        gx, gy, gz = grid
        bx, by, bz = block

        def launch(stream_ptr):
            check(cu.cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared,
                                    cu.CUstream(stream_ptr), params, 0))
        launch.keep = (vals, addrs)  # the parameter arrays must outlive the launches
        return launch


def make_launcher(which):
    errors = []
    for cls in ((CupyLauncher, DriverLauncher) if which == "auto" else
                (CupyLauncher,) if which == "cupy" else (DriverLauncher,)):
        try:
            return cls()
        except Exception as e:  # ImportError, or a driver that will not start
            errors.append("%s: %s" % (cls.name, e))
    die("no kernel launcher works (%s); install cupy-cuda13x or cuda-bindings" % "; ".join(errors))


def die(msg, status=1):
    sys.stderr.write("run_bench.py: error: %s\n" % msg)
    sys.exit(status)


def driver_versions():
    out = {}
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30)
        if r.returncode == 0 and r.stdout.strip():
            out["driver"] = r.stdout.decode().splitlines()[0].strip()
    except Exception:
        pass
    v = None
    try:
        try:
            from cuda.bindings import driver as cu
        except ImportError:
            from cuda import cuda as cu
        cu.cuInit(0)
        err, v = cu.cuDriverGetVersion()
    except Exception:
        try:
            import cupy
            v = cupy.cuda.runtime.driverGetVersion()
        except Exception:
            pass
    if v:
        out["cuda_driver_api"] = "%d.%d" % (v // 1000, (v % 1000) // 10)
    return out


TORCH_DTYPE_NAMES = {"float32": "float32", "bfloat16": "bfloat16", "float16": "float16",
                     "int8": "int8", "uint8": "uint8", "int32": "int32",
                     "float8_e4m3fn": "float8_e4m3fn", "int4": "int8", "uint4": "uint8"}
BITS_VIEW = {"float32": "int32", "bfloat16": "int16", "float16": "int16",
             "int8": "int8", "uint8": "uint8", "int32": "int32", "float8_e4m3fn": "uint8",
             "int4": "int8", "uint4": "uint8"}


class Gpu:
    def __init__(self, args):
        import numpy as np
        import torch
        self.np, self.torch, self.args = np, torch, args
        if not torch.cuda.is_available():
            die("PyTorch sees no CUDA device (torch %s, built for CUDA %s); "
                "--dry-run validates a manifest without one" % (torch.__version__, torch.version.cuda))
        torch.cuda.set_device(args.device)
        self.dev = torch.device("cuda", args.device)
        torch.empty(1, device=self.dev)  # creates the primary context
        self.props = torch.cuda.get_device_properties(args.device)
        self.l2 = getattr(self.props, "L2_cache_size", 0) or args.l2_mib << 20
        self.launcher = make_launcher(args.launcher)

    def dt(self, name):
        return getattr(self.torch, TORCH_DTYPE_NAMES[name])

    def check_chip(self, man):
        cc = self.props.major * 10 + self.props.minor
        want = int(re.match(r"sm_(\d+)", man["chip"]).group(1))
        if man["format"] == "bin" and want != cc:
            die("the manifest holds cubins for %s but %s is sm_%d; regenerate with "
                "make_kernels.sh --chip sm_%d" % (man["chip"], self.props.name, cc, cc))
        if want > cc:
            die("the manifest targets %s, newer than this %s (sm_%d)" % (man["chip"], self.props.name, cc))

    # -- data ---------------------------------------------------------------
    def bshape(self, k):
        s = [1] * len(k["shape"])
        if k["axis"] is not None:
            s[k["axis"]] = k["channels"]
        return s

    def broadcast(self, k, t):
        """A parameter table as a tensor that broadcasts against the input:
        per block, each entry repeated over its block along the axis."""
        if not k["block_size"]:
            return t.view(self.bshape(k))
        a, c = k["axis"], k["shape"][k["axis"]]
        full = t.view(k["table"]).repeat_interleave(k["block_size"], dim=a)
        return full.narrow(a, 0, c)

    def qparams(self, k):
        torch = self.torch
        roles = k["roles"]
        if k["format"]:
            return None, None, "format"
        scales = roles["scale"].get("values") or (
            blocked_scales(k["channels"]) if k["block_size"] else
            default_scales(k["channels"], k["axis"] is not None))
        if len(scales) != k["channels"]:  # manifest without values, non-benchmark channel count
            scales = [f32(PER_TENSOR_SCALE)] * k["channels"]
        zps = roles.get("zero_point", {}).get("values") or [0.0] * k["channels"]
        s = torch.tensor(scales, dtype=torch.float32, device=self.dev)
        z = torch.tensor(zps, dtype=torch.float32, device=self.dev)
        return s, z, ("manifest" if roles["scale"].get("values") else "default")

    def make_input(self, k, s, z, gen):
        """Normal samples centred in the representable range, with sigma set
        so that |x - mu| > clip_sigma * sigma saturates (1.24% at 2.5)."""
        torch = self.torch
        shape, dtype = k["shape"], k["dtype"]
        if k["format"]:
            return self.make_format_input(k, gen)
        if dtype not in FLOAT_DTYPES:  # dequantize: integers in [qmin, qmax]
            return torch.randint(k["qmin"], k["qmax"] + 1, shape, generator=gen,
                                 device=self.dev, dtype=torch.int32).to(self.dt(dtype))
        sb, zb = self.broadcast(k, s), self.broadcast(k, z)
        half = (k["qmax"] - k["qmin"]) / 2.0
        mu = sb * ((k["qmin"] + k["qmax"]) / 2.0 - zb)
        sigma = sb * (half / self.args.clip_sigma)
        x = torch.randn(shape, generator=gen, device=self.dev, dtype=torch.float32)
        x.mul_(sigma).add_(mu)
        self.inject_specials(k, x, s, z)
        return x.to(self.dt(dtype))

    def make_format_input(self, k, gen):
        """Normal samples with sigma 3.2 (fixed point <8, 4> saturates at
        2.5 sigma), TensorQuant's hostile values (ties on the 2^-4 grid, both
        zeros, subnormals, infinities, NaN) at the start, and NaN, +-inf,
        +-0 spread over the tensor; for ternary's own threshold, only those
        of magnitude below 1e3."""
        torch = self.torch
        x = torch.randn(k["shape"], generator=gen, device=self.dev, dtype=torch.float32)
        x.mul_(8.0 / self.args.clip_sigma)
        flat = x.view(-1)
        h = torch.from_numpy(self.formats().hostile(k["format"].get("fraction", 4))).to(self.dev)
        special = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0]
        if "threshold" in k["roles"]:
            # ternary's own threshold is a mean of |x|: a NaN or inf would
            # make it NaN or inf, and the hostile 3e38 would put every value
            # below it. The hostile values within the data's range stay.
            h = h[torch.isfinite(h) & (h.abs() < 1e3)]
            special = [0.0, -0.0]
        flat[:h.numel()] = h[:flat.numel()]
        n = flat.numel()
        special = torch.tensor(special, device=self.dev)
        idx = torch.div(torch.arange(64, device=self.dev) * (n - 1), 63, rounding_mode="floor")
        flat[idx] = special.repeat(-(-64 // special.numel()))[:64]
        return x.to(self.dt(k["dtype"]))

    def formats(self):
        """test/Execution/Inputs/number_formats.py: the NumPy reference of
        TensorQuant's formats that the lit tests check qdq-run against."""
        if not hasattr(self, "_formats"):
            import importlib.util
            path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "test", "Execution", "Inputs", "number_formats.py")
            spec = importlib.util.spec_from_file_location("number_formats", path)
            self._formats = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(self._formats)
        return self._formats

    def format_threshold(self, k, x):
        """ternary's own threshold, 0.7 * mean|x|, as the kernel's caller
        computes it before each launch (float32[1]); None when the format
        needs none."""
        if "threshold" not in k["roles"]:
            return None
        np = self.np
        mean = np.abs(x.float().cpu().numpy().astype(np.float64)).sum() / x.numel()
        return self.torch.tensor([np.float32(0.7 * mean)], device=self.dev)

    def reference_format(self, k, x, th):
        """The format applied on the host in NumPy (f32, the kernels'
        arithmetic), rounded to the output type on the device."""
        np, torch, f = self.np, self.torch, self.formats()
        fmt = k["format"]
        xf = x.float().cpu().numpy()
        with np.errstate(all="ignore"):
            kind = fmt["kind"]
            if kind == "fixed_point":
                y = f.fixed_point(xf, fmt["bits"], fmt["fraction"], fmt["rounding"], fmt["seed"])
            elif kind == "binary":
                y = f.binary(xf, np.float32(fmt["marginal"]))
            elif kind == "ternary":
                t = fmt["threshold"] if fmt["threshold"] is not None else th.item()
                y = f.ternary(xf, np.float32(fmt["marginal"]), np.float32(t))
            elif kind == "logarithmic":
                y = f.logarithmic(xf)
            elif kind == "sparse":
                y = f.sparse(xf, np.float32(fmt["threshold"]))
            else:
                y = f.half(xf)
        return torch.from_numpy(np.ascontiguousarray(y)).to(self.dev).to(self.dt(k["out_dtype"]))

    def inject_specials(self, k, x, s, z):
        """Ties and special values, so that the bitwise check sees them:
        4096 values (at least 64 per channel or block, for up to 64 of them)
        x with x / s == t + 0.5 exactly (t spanning the quantization range
        and 3 steps beyond: where a kernel that multiplies by 1/s, or fuses
        into an FMA, rounds the other way; for FP8, t the midpoints of
        neighbouring E4M3FN values and beyond 448),
        and NaN, +-inf, +-0 at the start and at 64 spread positions."""
        torch = self.torch
        flat = x.view(-1)
        n = flat.numel()
        # Parameter entries that get ties (up to 64, with a stride that
        # visits every block column), and where entry c's t-th tie goes.
        channels = k["channels"]
        count = min(channels, 64)
        stride = max(1, channels // count) | 1
        entries = (torch.arange(count, device=self.dev) * stride) % channels
        if k["axis"] is None:
            span = n
        elif k["block_size"]:
            # Entry (o, b, i) of the [outer, blocks, inner] table covers
            # elements (o * C + b * B + t) * inner + i, t < B (or what the
            # last block holds).
            a, B = k["axis"], k["block_size"]
            C, inner = k["shape"][a], _prod(k["shape"][a + 1:])
            span = min(B, C - (k["table"][a] - 1) * B)
        else:
            span = _prod(k["shape"][k["axis"] + 1:])
        per = min(span, max(64, 4096 // count))
        j = torch.arange(count * per, device=self.dev)
        c = entries[torch.div(j, per, rounding_mode="floor")]
        offset = j % per
        if k["block_size"]:
            blocks = k["table"][a]
            o = torch.div(c, blocks * inner, rounding_mode="floor")
            b = torch.div(c, inner, rounding_mode="floor") % blocks
            pos = ((o * C + b * B + offset) * inner) + c % inner
        else:
            pos = c * span + offset
        if k["fp8"]:
            # Midpoints of neighbouring E4M3FN values, both signs, and past 448.
            grid = torch.arange(127, dtype=torch.uint8, device=self.dev).view(
                torch.float8_e4m3fn).float()
            mids = torch.cat([(grid[1:] + grid[:-1]) / 2,
                              torch.tensor([464.0, 480.0], device=self.dev)])
            mids = torch.cat([mids, -mids])
            t = mids[(j * 7) % mids.numel()]
        else:
            lo, hi = k["qmin"] - 3, k["qmax"] + 3
            t = (lo + (j * 7) % (hi - lo + 1)).to(torch.float32) - z[c] + 0.5
        sc = s[c]
        x0 = t * sc
        best = x0
        for cand in (torch.nextafter(x0, x0 - 1), torch.nextafter(x0, x0 + 1), x0):
            best = torch.where(torch.div(cand, sc) == t, cand, best)
        flat[pos] = best
        special = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0],
                               device=self.dev)
        cnt = min(n, 64)
        idx = torch.div(torch.arange(cnt, device=self.dev) * (n - 1), max(1, cnt - 1),
                        rounding_mode="floor")  # int64: exact for any n
        flat[idx] = special.repeat(-(-idx.numel() // 5))[:idx.numel()]
        flat[:min(5, n)] = special[:min(5, n)]

    # -- reference ----------------------------------------------------------
    def reference(self, k, x, g, s, z):
        """The kernel's specification, computed with PyTorch. Division by a
        CUDA tensor (never a Python float: PyTorch multiplies by the
        reciprocal of a CPU scalar divisor) and torch.round (half to even)."""
        torch = self.torch
        if k["fp8"]:
            return self.reference_fp8(k, x, g, s)
        sb, zb = self.broadcast(k, s), self.broadcast(k, z)
        op, out = k["op"], self.dt(k["out_dtype"])
        if op == "dequantize":
            y = x.to(torch.float32)
            return y.sub_(zb).mul_(sb).to(out), None
        xf = x.to(torch.float32)
        nan = torch.isnan(xf)
        q = torch.div(xf, sb)
        q.round_().add_(zb)
        outside = (q < k["qmin"]) | (q > k["qmax"])
        outside &= ~nan
        saturated = torch.count_nonzero(outside).item() / max(1, outside.numel())
        if op == "fake_quant_grad":
            keep = ~outside & ~nan  # the kernels' ordered comparisons: NaN gets none
            del q
            return torch.where(keep, g.to(torch.float32),
                               torch.zeros((), device=self.dev)).to(out), saturated
        q.clamp_(k["qmin"], k["qmax"])
        q = torch.where(nan, zb.expand_as(q), q)
        if op == "quantize":
            return q.to(out), saturated
        return q.sub_(zb).mul_(sb).to(out), saturated

    def reference_fp8(self, k, x, g, s):
        """E4M3FN storage: x / s saturated to [-448, 448], rounded to the
        nearest E4M3FN value (ties to even; -0.0 stays -0.0), times s; a NaN
        stays NaN, written as the output type's canonical quiet NaN (the
        kernels' bits). The gradient passes where |x / s| <= 448."""
        torch = self.torch
        sb = self.broadcast(k, s)
        op, out = k["op"], self.dt(k["out_dtype"])

        def canonical(y):
            return torch.where(torch.isnan(y), torch.tensor(float("nan"), dtype=y.dtype,
                                                            device=self.dev), y)
        if op == "dequantize":
            return canonical(canonical(x.float().mul_(sb)).to(out)), None
        q = torch.div(x.to(torch.float32), sb)
        inside = (q >= -E4M3FN_MAX) & (q <= E4M3FN_MAX)
        saturated = 1 - torch.count_nonzero(inside | torch.isnan(q)).item() / max(1, q.numel())
        if op == "fake_quant_grad":
            return torch.where(inside, g.to(torch.float32),
                               torch.zeros((), device=self.dev)).to(out), saturated
        e = q.clamp_(-E4M3FN_MAX, E4M3FN_MAX).to(torch.float8_e4m3fn)
        del q
        if op == "quantize":
            return e, saturated
        return canonical(canonical(e.float().mul_(sb)).to(out)), saturated

    def compare(self, got, want, x, nan_equal=False):
        torch = self.torch
        vt = getattr(torch, BITS_VIEW[str(got.dtype).replace("torch.", "")])
        a, b = got.view(vt), want.view(vt)
        diff = a != b
        if nan_equal:
            diff &= ~(torch.isnan(got) & torch.isnan(want))
        count = int(torch.count_nonzero(diff).item())
        res = {"mismatches": count, "signed_zero": 0, "examples": []}
        if count:
            if got.is_floating_point():
                res["signed_zero"] = int(torch.count_nonzero(diff & (got == 0) & (want == 0)).item())
            where = torch.nonzero(diff.view(-1))[:5].view(-1).tolist()
            for i in where:
                res["examples"].append((i, float(x.view(-1)[i].float()),
                                        float(got.view(-1)[i].float()), float(want.view(-1)[i].float())))
        return res

    # -- timing -------------------------------------------------------------
    def measure(self, enqueue, label):
        """Median time of one operation, in ms. enqueue(i) puts operation i
        (rotation set i % R) on torch's current stream."""
        torch, args = self.torch, self.args
        for i in range(3):
            enqueue(i)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        n_est = 20
        start.record()
        for i in range(n_est):
            enqueue(i)
        end.record()
        end.synchronize()
        est = start.elapsed_time(end) / n_est
        K = int(min(args.max_batch, max(1, math.ceil(args.target_ms / max(est, 1e-4)))))
        method = "eager"
        run = None
        if not args.no_graph:
            try:
                side = torch.cuda.Stream()
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    for i in range(3):
                        enqueue(i)
                torch.cuda.current_stream().wait_stream(side)
                torch.cuda.synchronize()
                g = torch.cuda.CUDAGraph()
                try:
                    ctx = torch.cuda.graph(g, capture_error_mode="relaxed")
                except TypeError:
                    ctx = torch.cuda.graph(g)
                with ctx:
                    for i in range(K):
                        enqueue(i)
                run = g.replay
                method = "graph"
            except Exception as e:
                torch.cuda.synchronize()
                method = "eager (graph capture failed: %s)" % str(e).splitlines()[0][:120]
                run = None
        if run is None:
            def run():
                for i in range(K):
                    enqueue(i)
        for _ in range(args.warmup):
            run()
        torch.cuda.synchronize()
        times = []
        for _ in range(args.reps):
            start.record()
            run()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / K)
        res = {"ms": statistics.median(times), "min": min(times), "max": max(times),
               "K": K, "reps": args.reps, "method": method, "label": label}
        del run
        return res

    # -- one kernel ---------------------------------------------------------
    def bench(self, k, module):
        torch, args = self.torch, self.args
        gen = torch.Generator(device=self.dev)
        gen.manual_seed(args.seed)
        s, z, qsource = self.qparams(k)
        R = rotation_sets(k, self.l2, args.hot)
        x0 = self.make_input(k, s, z, gen)
        th = self.format_threshold(k, x0) if k["format"] else None
        g0 = None
        if "grad" in k["roles"]:
            g0 = torch.randn(k["shape"], generator=gen, device=self.dev).to(self.dt(k["dtype"]))
        xs = [x0] + [x0.clone() for _ in range(R - 1)]
        gs = [g0] + [g0.clone() for _ in range(R - 1)] if g0 is not None else None
        ys = [torch.empty(k["shape"], dtype=self.dt(k["out_dtype"]), device=self.dev) for _ in range(R)]
        f = self.launcher.function(module, k["kernel"], k["shared_bytes"])
        launches = []
        for r in range(R):
            ptrs = []
            for a in k["args"]:
                # reciprocal = RN(1/scale) in f32, as the kernel ABI asks
                # (include/QuantQDQ/Conversion/GPUKernelABI.h).
                t = {"input": xs[r], "output": ys[r], "scale": s, "zero_point": z,
                     "reciprocal": torch.reciprocal(s) if s is not None else None,
                     "threshold": th, "grad": gs[r] if gs else None}[a["role"]]
                ptrs.append(t.data_ptr())
            launches.append(self.launcher.prepare(f, k["grid"], k["block"], k["shared_bytes"], ptrs))
        stream_ptr = lambda: torch.cuda.current_stream().cuda_stream
        row = {"k": k, "R": R, "qsource": qsource, "notes": []}

        # Correctness first, on rotation set 0.
        ys[0].fill_(0)
        try:
            launches[0](stream_ptr())
            torch.cuda.synchronize()
        except Exception as e:
            die("%s: launching %s failed: %s" % (k["function"], k["kernel"], e))
        if k["format"]:
            want, sat = self.reference_format(k, x0, th), None
        else:
            want, sat = self.reference(k, x0, g0, s, z)
        row["check"] = self.compare(ys[0], want, x0, nan_equal=bool(k["format"]))
        row["saturated"] = sat
        del want

        row["ours"] = self.measure(lambda i: launches[i % R](stream_ptr()), "ours")
        cdst = ys if k["out_dtype"] == k["dtype"] else \
            [torch.empty_like(x0) for _ in range(R)]
        row["copy"] = self.measure(lambda i: cdst[i % R].copy_(xs[i % R]), "copy")
        row["torch"] = None
        if k["op"] == "fake_quant" and not args.no_torch:
            row["torch"] = self.bench_torch(k, xs, s, z, R, row)
        return row  # the buffers die with this frame; run_gpu empties the cache

    def bench_torch(self, k, xs, s, z, R, row):
        torch = self.torch
        import collections
        zi = z.round().to(torch.int32)
        axis, qmin, qmax = k["axis"], k["qmin"], k["qmax"]
        s_host, z_host = float(s[0].item()), int(zi[0].item())
        name = torch_baseline_name(k)
        if name is None:
            return None
        if k["fp8"]:
            fp8 = torch.float8_e4m3fn
            op = lambda t: torch.div(t.float(), s).clamp_(-E4M3FN_MAX, E4M3FN_MAX).to(
                fp8).float().mul_(s).to(t.dtype)
        elif k["block_size"]:
            B = k["block_size"]
            op = lambda t: torch.fake_quantize_per_channel_affine(
                t.view(-1, B), s, zi, 0, qmin, qmax).view(t.shape)
        elif axis is None:
            op = lambda t: torch.fake_quantize_per_tensor_affine(t, s_host, z_host, qmin, qmax)
        else:
            op = lambda t: torch.fake_quantize_per_channel_affine(t, s, zi, axis, qmin, qmax)
        inputs, nbytes = xs, k["bytes_ours"]
        try:
            y = op(xs[0])
            torch.cuda.synchronize()
        except Exception as e:
            if k["dtype"] == "float32":
                row["notes"].append("%s failed on float32: %s" % (name, str(e).splitlines()[0]))
                return None
            row["notes"].append("%s refuses %s (%s); the torch column is float32 on the same "
                                "values, moving %s bytes" % (
                                    name, k["dtype"], str(e).splitlines()[0][:100],
                                    fmt_int(2 * k["numel"] * 4 + (k["bytes_ours"] - 2 * k["input_bytes"]))))
            inputs = [xs[0].float()]
            inputs += [inputs[0].clone() for _ in range(R - 1)]
            nbytes = 2 * k["numel"] * 4 + (k["bytes_ours"] - 2 * k["input_bytes"])
            y = op(inputs[0])
        want, _ = self.reference(dict(k, dtype=str(inputs[0].dtype).replace("torch.", ""),
                                      out_dtype=str(y.dtype).replace("torch.", "")),
                                 inputs[0], None, s, z)
        diff = self.compare(y, want, inputs[0])
        del want, y
        keep = collections.deque(maxlen=R)  # R live outputs: the allocator rotates them too

        def enqueue(i):
            keep.append(op(inputs[i % R]))
        res = self.measure(enqueue, "torch")
        keep.clear()
        res["bytes"] = nbytes
        res["dtype"] = str(inputs[0].dtype).replace("torch.", "")
        res["vs_reference"] = diff["mismatches"]
        return res


def gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


def run_gpu(man, args):
    g = Gpu(args)
    g.check_chip(man)
    torch = g.torch
    modules = {}
    for name, o in man["objects"].items():
        try:
            modules[name] = g.launcher.load(o["bytes"])
        except Exception as e:
            die("loading object %s (%s) with %s failed: %s" % (name, o["kind"], g.launcher.name, e))
    ver = driver_versions()
    machine = {
        "device": torch.cuda.get_device_name(args.device), "sms": g.props.multi_processor_count,
        "cc": "%d.%d" % (g.props.major, g.props.minor),
        "memory_gib": g.props.total_memory / (1 << 30), "l2_mib": g.l2 / (1 << 20),
        "driver": ver.get("driver", "unknown"), "cuda_driver_api": ver.get("cuda_driver_api", "unknown"),
        "torch": torch.__version__, "torch_cuda": torch.version.cuda, "launcher": g.launcher.version,
    }
    sys.stderr.write("%s, %d SMs, driver %s (CUDA %s), torch %s, %s\n" % (
        machine["device"], machine["sms"], machine["driver"], machine["cuda_driver_api"],
        machine["torch"], machine["launcher"]))
    rows = []
    failed = []
    for k in man["kernels"]:
        if args.only and not re.search(args.only, k["function"]):
            continue
        sys.stderr.write("%s ...\n" % k["function"])
        row = g.bench(k, modules[k["module"]])
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        rows.append(row)
        c = row["check"]
        if c["mismatches"]:
            failed.append(k["function"])
            sys.stderr.write("FAIL %s: %d of %d outputs differ from the reference bit for bit "
                             "(%d only in the sign of zero)\n" % (
                                 k["function"], c["mismatches"], k["numel"], c["signed_zero"]))
            for i, xv, got, want in c["examples"]:
                sys.stderr.write("  [%d] x = %r: got %r, want %r\n" % (i, xv, got, want))
    text = report(man, args, machine, rows)
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    if failed:
        die("%d kernel(s) compute something else than the specification: %s" % (
            len(failed), ", ".join(failed)))


def report(man, args, machine, rows):
    order = {d: i for i, d in enumerate(FLOAT_DTYPES + tuple(INT_RANGE))}
    rows = sorted(rows, key=lambda r: (r["k"]["op"], r["k"]["fp8"], bool(r["k"]["block_size"]),
                                       r["k"]["format"]["name"] if r["k"]["format"] else "",
                                       order.get(r["k"]["dtype"], 99),
                                       r["k"]["axis"] is not None, r["k"]["input_bytes"]))
    L = []
    L.append("# Fake-quant GPU kernels against a device copy and PyTorch\n\n")
    L.append("`bench/gpu/run_bench.py %s` on %s (compute capability %s, %d SMs, "
             "%.0f GiB, L2 %.0f MiB), driver %s (CUDA driver API %s), PyTorch %s (CUDA %s), "
             "launched with %s, %s. Manifest: chip %s, format %s, sha256 %s.\n\n" % (
                 os.path.basename(args.manifest), machine["device"], machine["cc"], machine["sms"],
                 machine["memory_gib"], machine["l2_mib"], machine["driver"],
                 machine["cuda_driver_api"], machine["torch"], machine["torch_cuda"],
                 machine["launcher"], datetime.date.today().isoformat(), man["chip"], man["format"],
                 man["sha256"][:16]))
    L.append("GB/s = 10^9 bytes/s of bytes each operation must move (ours: input + output "
             "+ scale + zero point; copy: input read + written; torch: the same bytes as "
             "ours). Median of %d measurements of K back-to-back operations%s, %s.\n\n" % (
                 args.reps, " in a CUDA graph" if not args.no_graph else "",
                 "L2-resident (--hot)" if args.hot else
                 "cycling through buffer copies four times the L2 size (HBM-bound)"))
    L.append("| size | layout | dtype | ours GB/s | copy GB/s | ours/copy | torch GB/s | "
             "ours/torch | check |\n")
    L.append("|---|---|---|---:|---:|---:|---:|---:|---|\n")
    notes = []
    for r in rows:
        k = r["k"]
        ours = gbps(k["bytes_ours"], r["ours"]["ms"])
        copy = gbps(2 * k["input_bytes"], r["copy"]["ms"])
        t = r["torch"]
        tg = gbps(t["bytes"], t["ms"]) if t else None
        c = r["check"]
        check = "bitwise ok" if not c["mismatches"] else "**%d differ**" % c["mismatches"]
        dtype = SHORT_DTYPE[k["dtype"]] + ("" if k["op"] == "fake_quant" else " " + k["op"])
        if t and t["dtype"] != k["dtype"]:
            dtype += " (torch: %s)" % SHORT_DTYPE[t["dtype"]]
        L.append("| %s | %s | %s | %.0f | %.0f | %.2f | %s | %s | %s |\n" % (
            size_label(k["input_bytes"]), layout_of(k), dtype, ours, copy, ours / copy,
            "%.0f" % tg if t else "n/a", "%.2f" % (ours / tg) if t else "n/a", check))
        for n in r["notes"]:
            notes.append("%s: %s" % (k["function"], n))
        if t and t["vs_reference"]:
            why = ("its NaNs are not the canonical NaN" if k["fp8"] else
                   "PyTorch multiplies by 1/scale instead of dividing, and NaN and inf do "
                   "not follow this specification")
            notes.append("%s: torch's own output differs from the division-semantics reference "
                         "on %s of %s elements (%s)" % (k["function"], fmt_int(t["vs_reference"]),
                                                        fmt_int(k["numel"]), why))
    L.append("\nTimes per operation (µs: median, min, max over the measurements; K operations "
             "per measurement; R buffer sets rotated):\n\n")
    L.append("| function | ours | copy | torch | K ours/copy/torch | R | method | saturated | scales |\n")
    L.append("|---|---:|---:|---:|---|---:|---|---:|---|\n")
    for r in rows:
        k = r["k"]
        f = lambda m: "%.2f (%.2f-%.2f)" % (m["ms"] * 1e3, m["min"] * 1e3, m["max"] * 1e3) if m else "n/a"
        methods = sorted({m["method"] for m in (r["ours"], r["copy"], r["torch"]) if m})
        L.append("| %s | %s | %s | %s | %s | %d | %s | %s | %s |\n" % (
            k["function"], f(r["ours"]), f(r["copy"]), f(r["torch"]),
            "/".join(str(m["K"]) if m else "-" for m in (r["ours"], r["copy"], r["torch"])),
            r["R"], ", ".join(methods),
            "%.2f%%" % (100 * r["saturated"]) if r["saturated"] is not None else "n/a",
            r["qsource"]))
    if notes:
        L.append("\nNotes:\n\n")
        for n in notes:
            L.append("- %s\n" % n)
    return "".join(L)


# ---------------------------------------------------------------------------

def main(argv=None):
    p = argparse.ArgumentParser(
        description="Benchmark the fake-quant GPU kernels of a qdq-translate "
                    "--export-gpu-kernels manifest against a device copy and PyTorch.")
    p.add_argument("manifest", help="kernels.json from make_kernels.sh")
    p.add_argument("--dry-run", action="store_true",
                   help="validate the manifest and print the plan; needs no GPU")
    p.add_argument("--out", help="also write the Markdown results to this file")
    p.add_argument("--only", metavar="REGEX", help="only functions whose name matches")
    p.add_argument("--reps", type=int, default=25, help="measurements per figure (median)")
    p.add_argument("--warmup", type=int, default=3, help="untimed runs before measuring")
    p.add_argument("--target-ms", type=float, default=10.0,
                   help="about how long one measurement lasts (sets K)")
    p.add_argument("--max-batch", type=int, default=20000, help="upper bound on K")
    p.add_argument("--hot", action="store_true",
                   help="reuse one buffer set (small sizes then run from L2)")
    p.add_argument("--no-graph", action="store_true",
                   help="launch from Python in a loop instead of replaying a CUDA graph")
    p.add_argument("--no-torch", action="store_true",
                   help="skip PyTorch's fake quantization (kernel and copy only)")
    p.add_argument("--launcher", choices=("auto", "cupy", "driver"), default="auto",
                   help="CuPy or cuda-bindings (driver API); auto tries CuPy first")
    p.add_argument("--device", type=int, default=0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--clip-sigma", type=float, default=2.5,
                   help="the range edge in standard deviations of the data (2.5: 1.24%% saturate)")
    p.add_argument("--expect-bench-set", action="store_true",
                   help="fail unless every function of gen_mlir.py has a fake_quant kernel "
                        "(make_kernels.sh checks its output with this)")
    p.add_argument("--l2-mib", type=int, default=50,
                   help="L2 size the dry run assumes (the GPU run asks the device)")
    args = p.parse_args(argv)
    try:
        man = load_manifest(args.manifest)
    except Invalid as e:
        die("%s: %s" % (args.manifest, e))
    if args.expect_bench_set:
        have = {(k["function"], k["op"]) for k in man["kernels"]}
        lack = [f["function"] for f in bench_set()
                if (f["function"], f.get("op", "fake_quant")) not in have]
        if lack:
            die("%s: no kernel of the right op for %d of the %d benchmark functions: %s" % (
                args.manifest, len(lack), len(bench_set()), ", ".join(lack)))
    if args.only:
        man["kernels"] = [k for k in man["kernels"] if re.search(args.only, k["function"])]
        if not man["kernels"]:
            die("no function matches --only %s" % args.only)
    if args.dry_run:
        print_plan(man, args.l2_mib << 20, args.hot)
        print("dry run: the manifest is valid; nothing was run")
        return 0
    run_gpu(man, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
