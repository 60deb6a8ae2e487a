#!/usr/bin/env python3
"""Runs every layer op and the Q/DQ ops through qdq-run and compares with
PyTorch computing the same thing. Each case is a small function in the
quant_qdq dialect with random constant weights and a random input; prints
one line per case and exits non-zero on the first mismatch.

usage: layers_vs_torch.py QDQ_RUN WORKDIR
"""
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.RandomState(7)
qdq_run, work = sys.argv[1], Path(sys.argv[2])
work.mkdir(parents=True, exist_ok=True)


def ttype(shape, dtype="f32"):
    return "tensor<" + "x".join(str(d) for d in shape) + ("x" if shape else "") + dtype + ">"


def dense(array):
    """An MLIR dense literal for a float32 array."""
    flat = ", ".join(repr(float(v)) for v in array.reshape(-1))
    return f"dense<[{flat}]> : {ttype(array.shape)}" if array.ndim == 1 else \
        f"dense<{np.array2string(array, separator=', ', threshold=10**9, floatmode='unique').replace(chr(10), '')}> : {ttype(array.shape)}"


def run_case(name, body, inputs, expected, out_dtype="f32", atol=1e-4, rtol=1e-4):
    """body: the function text using %a0.. as arguments, returning %r."""
    args = ", ".join(f"%a{i}: {ttype(x.shape, 'f32')}" for i, x in enumerate(inputs))
    out_type = ttype(expected.shape, out_dtype)
    text = f"func.func @f({args}) -> {out_type} {{\n{body}\n  return %r : {out_type}\n}}\n"
    mlir = work / f"{name}.mlir"
    mlir.write_text(text)
    cmd = [qdq_run, str(mlir)]
    for i, x in enumerate(inputs):
        path = work / f"{name}.in{i}.npy"
        np.save(path, x.astype(np.float32))
        cmd += ["--input", str(path)]
    out = work / f"{name}.out.npy"
    cmd += ["--output", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"FAIL {name}: qdq-run failed\n{proc.stderr}\n{text}")
        sys.exit(1)
    got = np.load(out)
    if got.shape != expected.shape or not np.allclose(got, expected, atol=atol, rtol=rtol, equal_nan=True):
        diff = np.nanmax(np.abs(got.astype(np.float64) - expected.astype(np.float64))) if got.shape == expected.shape else "shape"
        print(f"FAIL {name}: max |diff| {diff}\nexpected {expected.reshape(-1)[:8]}\ngot      {got.reshape(-1)[:8]}")
        sys.exit(1)
    print(f"ok {name}")


def t(x):
    return torch.from_numpy(np.ascontiguousarray(x))


def randn(*shape):
    return rng.randn(*shape).astype(np.float32)


cases = 0

# Convolutions: plain, strided+padded+dilated, grouped, depthwise. Then
# depthwise and grouped ones as register tiles of output rows
# (qdq-vectorize-convolution-rows): rows past whole tiles, columns past
# whole vectors (masked), stride 2 on even and odd widths, dilation, 5x5
# windows, a channel multiplier, input channels per group, 1x1 windows.
for name, cin, cout, groups, hw, k, stride, pad, dil in [
        ("conv", 3, 8, 1, (9, 9), 3, 1, 0, 1),
        ("conv_s2_p1_d2", 4, 6, 1, (9, 9), 3, 2, 1, 2),
        ("conv_grouped", 8, 12, 4, (9, 9), 3, 1, 1, 1),
        ("conv_depthwise", 6, 6, 6, (9, 9), 3, 2, 1, 1),
        ("conv_depthwise_m2", 4, 8, 4, (9, 9), 3, 1, 1, 1),
        ("dw_rows", 4, 4, 4, (13, 37), 3, 1, 1, 1),
        ("dw_s2_even", 4, 4, 4, (12, 34), 3, 2, 1, 1),
        ("dw_s2_odd", 4, 4, 4, (11, 35), 3, 2, 1, 1),
        ("dw_k5_d2", 3, 3, 3, (17, 29), 5, 1, 4, 2),
        ("dw_k5_s2", 3, 3, 3, (15, 40), 5, 2, 2, 1),
        ("dw_7x7", 16, 16, 16, (7, 7), 3, 1, 1, 1),
        ("dw_m2_s2", 4, 8, 4, (9, 26), 3, 2, 1, 1),
        ("dw_k1", 5, 5, 5, (6, 19), 1, 1, 0, 1),
        ("grouped_rows", 6, 9, 3, (10, 21), 3, 1, 1, 1)]:
    x, w, b = randn(2, cin, *hw), randn(cout, cin // groups, k, k), randn(cout)
    ref = F.conv2d(t(x), t(w), t(b), stride=stride, padding=pad, dilation=dil, groups=groups).numpy()
    body = (f"  %w = arith.constant {dense(w)}\n  %b = arith.constant {dense(b)}\n"
            f"  %r = quant_qdq.conv2d %a0, %w, %b {{strides = array<i64: {stride}, {stride}>, "
            f"pads = array<i64: {pad}, {pad}, {pad}, {pad}>, dilations = array<i64: {dil}, {dil}>, groups = {groups} : i64}}"
            f" : ({ttype(x.shape)}, {ttype(w.shape)}, {ttype(b.shape)}) -> {ttype(ref.shape)}")
    run_case(name, body, [x], ref, atol=1e-3)
    cases += 1

for name, cin, cout, groups in [("conv_nhwc", 3, 5, 1), ("conv_nhwc_depthwise_m2", 4, 8, 4)]:
    x, w = randn(1, cin, 7, 7), randn(cout, cin // groups, 3, 3)
    ref = F.conv2d(t(x), t(w), padding=1, groups=groups).numpy().transpose(0, 2, 3, 1)
    x_nhwc, w_hwio = x.transpose(0, 2, 3, 1).copy(), w.transpose(2, 3, 1, 0).copy()
    body = (f"  %w = arith.constant {dense(w_hwio)}\n"
            f"  %r = quant_qdq.conv2d %a0, %w {{layout = #quant_qdq<layout nhwc>, groups = {groups} : i64, "
            f"pads = array<i64: 1, 1, 1, 1>}} : ({ttype(x_nhwc.shape)}, {ttype(w_hwio.shape)}) -> {ttype(ref.shape)}")
    run_case(name, body, [x_nhwc], ref.copy(), atol=1e-3)
    cases += 1

# Dense, both weight layouts, rank 3 input.
x, w, b = randn(2, 3, 16), randn(16, 10), randn(10)
ref = (t(x) @ t(w) + t(b)).numpy()
run_case("dense", f"  %w = arith.constant {dense(w)}\n  %b = arith.constant {dense(b)}\n"
         f"  %r = quant_qdq.dense %a0, %w, %b : ({ttype(x.shape)}, {ttype(w.shape)}, {ttype(b.shape)}) -> {ttype(ref.shape)}",
         [x], ref, atol=1e-3)
wt = w.T.copy()
run_case("dense_transposed", f"  %w = arith.constant {dense(wt)}\n  %b = arith.constant {dense(b)}\n"
         f"  %r = quant_qdq.dense %a0, %w, %b {{transpose_weight}} : ({ttype(x.shape)}, {ttype(wt.shape)}, {ttype(b.shape)}) -> {ttype(ref.shape)}",
         [x], ref, atol=1e-3)
cases += 2

# Pooling.
x = randn(2, 3, 7, 7)
for name, kernel, stride, pad, ceil, include in [
        ("max_pool", 2, 2, 0, False, False), ("max_pool_ceil_pad", 3, 2, 1, True, False)]:
    ref = F.max_pool2d(t(x), kernel, stride, pad, ceil_mode=ceil).numpy()
    attrs = f"kernel_shape = array<i64: {kernel}, {kernel}>, strides = array<i64: {stride}, {stride}>, pads = array<i64: {pad}, {pad}, {pad}, {pad}>" + (", ceil_mode" if ceil else "")
    run_case(name, f"  %r = quant_qdq.max_pool2d %a0 {{{attrs}}} : ({ttype(x.shape)}) -> {ttype(ref.shape)}", [x], ref)
    cases += 1
for name, kernel, stride, pad, ceil, include in [
        ("avg_pool", 2, 2, 0, False, False), ("avg_pool_pad_exclude", 3, 1, 1, False, False),
        ("avg_pool_pad_include", 3, 2, 1, False, True), ("avg_pool_ceil", 3, 2, 0, True, False)]:
    ref = F.avg_pool2d(t(x), kernel, stride, pad, ceil_mode=ceil, count_include_pad=include).numpy()
    attrs = f"kernel_shape = array<i64: {kernel}, {kernel}>, strides = array<i64: {stride}, {stride}>, pads = array<i64: {pad}, {pad}, {pad}, {pad}>" + (", ceil_mode" if ceil else "") + (", count_include_pad" if include else "")
    run_case(name, f"  %r = quant_qdq.avg_pool2d %a0 {{{attrs}}} : ({ttype(x.shape)}) -> {ttype(ref.shape)}", [x], ref)
    cases += 1
ref = x.mean(axis=(2, 3), keepdims=True)
run_case("global_avg_pool", f"  %r = quant_qdq.global_avg_pool2d %a0 : ({ttype(x.shape)}) -> {ttype(ref.shape)}", [x], ref)
ref = x.max(axis=(2, 3))
run_case("global_max_pool", f"  %r = quant_qdq.global_max_pool2d %a0 {{keep_dims = false}} : ({ttype(x.shape)}) -> {ttype(ref.shape)}", [x], ref)
cases += 2

# Batch norm, element-wise and activations.
x = randn(2, 4, 3, 3)
g, bt, m, v = randn(4), randn(4), randn(4), np.abs(randn(4)) + 0.1
ref = F.batch_norm(t(x), t(m), t(v), t(g), t(bt), eps=1e-3).numpy()
run_case("batch_norm", f"  %g = arith.constant {dense(g)}\n  %bt = arith.constant {dense(bt)}\n  %m = arith.constant {dense(m)}\n  %v = arith.constant {dense(v)}\n"
         f"  %r = quant_qdq.batch_norm %a0, %g, %bt, %m, %v {{epsilon = 1.0e-3 : f32}} : ({ttype(x.shape)}, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> {ttype(x.shape)}",
         [x], ref)
cases += 1
x = randn(2, 5) * 4
tx = t(x)
for kind, attrs, ref in [
        ("relu", "", F.relu(tx)), ("relu6", "", F.relu6(tx)),
        ("leaky_relu", "{alpha = 0.1 : f32}", F.leaky_relu(tx, 0.1)),
        ("clip", "{min = -1.0 : f32, max = 2.0 : f32}", tx.clamp(-1, 2)),
        ("sigmoid", "", torch.sigmoid(tx)), ("hard_sigmoid", "", torch.clamp(0.2 * tx + 0.5, 0, 1)),
        ("swish", "", F.silu(tx)), ("hard_swish", "", F.hardswish(tx)), ("tanh", "", torch.tanh(tx)),
        ("gelu", "", F.gelu(tx)), ("gelu_tanh", "", F.gelu(tx, approximate="tanh")),
        ("elu", "{alpha = 0.5 : f32}", F.elu(tx, 0.5)),
        ("softplus", "", F.softplus(tx)), ("linear", "", tx)]:
    run_case(f"activation_{kind}", f"  %r = quant_qdq.activation {kind} %a0 {attrs} : {ttype(x.shape)}", [x], ref.numpy())
    cases += 1
x, y, z = randn(2, 3, 4, 4), randn(1, 3, 1, 1), randn(4)
run_case("add_broadcast3", f"  %r = quant_qdq.add %a0, %a1, %a2 : ({ttype(x.shape)}, {ttype(y.shape)}, {ttype(z.shape)}) -> {ttype(x.shape)}", [x, y, z], x + y + z)
run_case("multiply_broadcast", f"  %r = quant_qdq.multiply %a0, %a1 : ({ttype(x.shape)}, {ttype(y.shape)}) -> {ttype(x.shape)}", [x, y], x * y)
ref = F.softmax(t(x), dim=1).numpy()
run_case("softmax_axis1", f"  %r = quant_qdq.softmax %a0 {{axis = 1 : i64}} : ({ttype(x.shape)}) -> {ttype(x.shape)}", [x], ref)
ref = F.softmax(t(x), dim=-1).numpy()
run_case("softmax_default_axis", f"  %r = quant_qdq.softmax %a0 : ({ttype(x.shape)}) -> {ttype(x.shape)}", [x], ref)
cases += 4
# Layer normalization over the last two dimensions, with and without the
# scale and the bias (broadcast from one row).
x, g, bt = randn(2, 3, 4, 5) * 3 + 1, randn(4, 5), randn(1, 5)
ref = F.layer_norm(t(x), (4, 5), t(g), t(np.broadcast_to(bt, (4, 5)).copy()), eps=1e-3).numpy()
run_case("layer_norm_affine", f"  %g = arith.constant {dense(g)}\n  %bt = arith.constant {dense(bt)}\n"
         f"  %r = quant_qdq.layer_norm %a0 scale %g bias %bt {{axis = -2 : i64, epsilon = 1.0e-3 : f32}} : ({ttype(x.shape)}, {ttype(g.shape)}, {ttype(bt.shape)}) -> {ttype(x.shape)}",
         [x], ref)
ref = F.layer_norm(t(x), (5,)).numpy()
run_case("layer_norm_plain", f"  %r = quant_qdq.layer_norm %a0 : ({ttype(x.shape)}) -> {ttype(x.shape)}", [x], ref)
cases += 2
# RMS normalization (torch 1.13 has no F.rms_norm: Llama's formula), over
# the last two dimensions with a scale of one row, and over the last alone.
def rms_norm(v, dims, eps):
    return v * torch.rsqrt(v.pow(2).mean(dims, keepdim=True) + eps)

ref = (rms_norm(t(x), (-2, -1), 1e-3) * t(bt)).numpy()
run_case("rms_norm_scaled", f"  %bt = arith.constant {dense(bt)}\n"
         f"  %r = quant_qdq.rms_norm %a0 scale %bt {{axis = -2 : i64, epsilon = 1.0e-3 : f32}} : ({ttype(x.shape)}, {ttype(bt.shape)}) -> {ttype(x.shape)}",
         [x], ref)
ref = rms_norm(t(x), -1, 1e-5).numpy()
run_case("rms_norm_plain", f"  %r = quant_qdq.rms_norm %a0 : ({ttype(x.shape)}) -> {ttype(x.shape)}", [x], ref)
cases += 2

# Shape layers.
a, b = randn(2, 3, 4), randn(2, 5, 4)
run_case("concat", f"  %r = quant_qdq.concat %a0, %a1 {{axis = -2 : i64}} : ({ttype(a.shape)}, {ttype(b.shape)}) -> tensor<2x8x4xf32>", [a, b], np.concatenate([a, b], axis=1))
run_case("flatten", f"  %r = quant_qdq.flatten %a0 {{axis = 2 : i64}} : ({ttype(a.shape)}) -> tensor<6x4xf32>", [a], a.reshape(6, 4))
run_case("reshape", f"  %r = quant_qdq.reshape %a0 {{shape = array<i64: 4, -1>}} : ({ttype(a.shape)}) -> tensor<4x6xf32>", [a], a.reshape(4, 6))
run_case("transpose", f"  %r = quant_qdq.transpose %a0 {{perm = array<i64: 2, 0, 1>}} : ({ttype(a.shape)}) -> tensor<4x2x3xf32>", [a], a.transpose(2, 0, 1).copy())
for mode, np_mode in [("constant", "constant"), ("reflect", "reflect"), ("edge", "edge")]:
    ref = np.pad(a, ((0, 0), (1, 2), (2, 1)), mode=np_mode)
    run_case(f"pad_{mode}", f"  %r = quant_qdq.pad %a0 {{pads = array<i64: 0, 1, 2, 0, 2, 1>, mode = #quant_qdq<pad_mode {mode}>}} : ({ttype(a.shape)}) -> {ttype(ref.shape)}", [a], ref)
cases += 7

# Q/DQ numerics against torch.fake_quantize_*: round half to even, the
# narrow and full int8 ranges, asymmetric uint8, per channel.
x = np.concatenate([randn(64) * 3, np.array([0.25, 0.75, -0.25, -0.75, 1.25, -1.25, 100.0, -100.0, -0.0, 0.0], np.float32)])
ref = torch.fake_quantize_per_tensor_affine(t(x), 0.5, 0, -127, 127).numpy()
run_case("fake_quant_narrow_ties", f"  %r = quant_qdq.fake_quant %a0 <bits = 8> scale [0.5] : {ttype(x.shape)}", [x], ref, atol=0, rtol=0)
ref = torch.fake_quantize_per_tensor_affine(t(x), 0.5, 0, -128, 127).numpy()
run_case("fake_quant_full_range", f"  %r = quant_qdq.fake_quant %a0 <bits = 8, narrow_range = false> scale [0.5] : {ttype(x.shape)}", [x], ref, atol=0, rtol=0)
ref = torch.fake_quantize_per_tensor_affine(t(x), 0.05, 100, 0, 255).numpy()
run_case("fake_quant_uint8_asymmetric", f"  %r = quant_qdq.fake_quant %a0 <bits = 8, is_signed = false, narrow_range = false, symmetric = false> scale [0.05] zero_point [100] : {ttype(x.shape)}", [x], ref, atol=0, rtol=0)
w = randn(4, 3, 2, 2)
scales = np.array([0.01, 0.02, 0.05, 0.1], np.float32)
ref = torch.fake_quantize_per_channel_affine(t(w), t(scales), torch.zeros(4, dtype=torch.int32), 0, -127, 127).numpy()
run_case("fake_quant_per_channel", f"  %r = quant_qdq.fake_quant %a0 <bits = 8, axis = 0> scale [{', '.join(repr(float(s)) for s in scales)}] : {ttype(w.shape)}", [w], ref, atol=0, rtol=0)
q_ref = np.clip(np.round(x / 0.5), -127, 127).astype(np.int8)
run_case("quantize_int8", f"  %r = quant_qdq.quantize %a0 <bits = 8> scale [0.5] : {ttype(x.shape)} -> {ttype(x.shape, 'i8')}", [x], q_ref, out_dtype="i8", atol=0, rtol=0)
special = np.array([np.nan, np.inf, -np.inf, 0.5, 1.5, 2.5, -2.5], np.float32)
run_case("quantize_special_values", f"  %r = quant_qdq.quantize %a0 <bits = 8> scale [1.0] zero_point [0] : {ttype(special.shape)} -> {ttype(special.shape, 'i8')}",
         [special], np.array([0, 127, -127, 0, 2, 2, -2], np.int8), out_dtype="i8", atol=0, rtol=0)
cases += 6

# The straight-through gradient of fake_quant against torch autograd: the
# gradient passes where round(x / s) + zp lies in [qmin, qmax], including the
# edges, and is 0 where it saturates, for NaN and for +-inf. Power-of-two
# scales, where torch's reciprocal equals our division.
def torch_ste(x, dy, forward):
    xt = t(x).clone().requires_grad_(True)
    forward(xt).backward(t(dy))
    return xt.grad.numpy()

edges = np.array([63.5, 63.75, -63.5, -63.75, 64.0, -64.0, np.nan, np.inf, -np.inf, -0.0], np.float32)
xg = np.concatenate([randn(54) * 40, edges])
dy = randn(*xg.shape)
ref = torch_ste(xg, dy, lambda v: torch.fake_quantize_per_tensor_affine(v, 0.5, 0, -127, 127))
run_case("fake_quant_grad_narrow", f"  %r = quant_qdq.fake_quant_grad %a0, %a1 <bits = 8> scale [0.5] : {ttype(xg.shape)}", [xg, dy], ref, atol=0, rtol=0)
ref = torch_ste(xg, dy, lambda v: torch.fake_quantize_per_tensor_affine(v, 0.25, 100, 0, 255))
run_case("fake_quant_grad_uint8_asymmetric", f"  %r = quant_qdq.fake_quant_grad %a0, %a1 <bits = 8, is_signed = false, narrow_range = false, symmetric = false> scale [0.25] zero_point [100] : {ttype(xg.shape)}", [xg, dy], ref, atol=0, rtol=0)
wg = randn(4, 3, 2, 2) * 2
dw = randn(4, 3, 2, 2)
pow2 = np.array([0.0078125, 0.015625, 0.03125, 0.0625], np.float32)
ref = torch_ste(wg, dw, lambda v: torch.fake_quantize_per_channel_affine(v, t(pow2), torch.zeros(4, dtype=torch.int32), 0, -127, 127))
run_case("fake_quant_grad_per_channel", f"  %r = quant_qdq.fake_quant_grad %a0, %a1 <bits = 8, axis = 0> scale [{', '.join(repr(float(s)) for s in pow2)}] : {ttype(wg.shape)}", [wg, dw], ref, atol=0, rtol=0)
cases += 3

print(f"{cases} passed, 0 failed")
