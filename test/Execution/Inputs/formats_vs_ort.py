#!/usr/bin/env python3
"""Int4 blocked weights, int16 activations and FP8 (E4M3FN), end to end:
quant-qdq places and exports them, the ONNX checker accepts the model, ONNX
Runtime runs it, and its numbers equal a NumPy reference written from the
ONNX definitions (ml_dtypes for FP8 rounding), and qdq-run's equal ONNX
Runtime's.

    formats_vs_ort.py QDQ_OPT QDQ_RUN WORKDIR
"""
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

BLOCK = 32


def mlp_model(rng):
    """x[2, 96] -> MatMul w1[96, 64] (+ b1) -> Relu -> Gemm w2[16, 64]^T."""
    w1 = rng.standard_normal((96, 64)).astype(np.float32) * 0.2
    b1 = rng.standard_normal(64).astype(np.float32) * 0.1
    w2 = rng.standard_normal((16, 64)).astype(np.float32) * 0.2
    # A block of zeros and a block with one outlier.
    w1[:BLOCK, 0] = 0.0
    w1[BLOCK + 3, 1] = 4.0
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["m1"], name="fc1"),
        helper.make_node("Add", ["m1", "b1"], ["h"], name="fc1_bias"),
        helper.make_node("Relu", ["h"], ["r"], name="relu"),
        helper.make_node("Gemm", ["r", "w2"], ["y"], name="fc2", transB=1),
    ]
    inits = [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"),
             numpy_helper.from_array(w2, "w2")]
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 96])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 16])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              ir_version=8)
    return model, (w1, b1, w2)


def int4_blocks(w, axis):
    """int4 weights as weight-format=int4 quantizes them, per block of BLOCK
    along `axis`: the smallest scale that fits the block's minimum and
    maximum into -8..7, round half to even, clamp, dequantized."""
    moved = np.moveaxis(w, axis, 0)
    out = np.empty_like(moved)
    for start in range(0, moved.shape[0], BLOCK):
        block = moved[start:start + BLOCK]
        hi = np.maximum(block.max(axis=0), 0).astype(np.float32)
        lo = np.minimum(block.min(axis=0), 0).astype(np.float32)
        scale = np.maximum(hi / np.float32(7), lo / np.float32(-8))
        scale = np.where(scale > 0, scale, np.float32(1)).astype(np.float32)
        q = np.clip(np.round(block / scale), -8, 7)
        out[start:start + BLOCK] = q * scale
    return np.moveaxis(out, 0, axis)


def fake_quant(x, scale, bits):
    qmax = 2 ** (bits - 1) - 1
    return (np.clip(np.round(x / scale), -qmax, qmax) * scale).astype(np.float32)


def fp8(x, scale):
    """ONNX's saturating FP8 E4M3FN quantization, dequantized."""
    q = np.clip(x / scale, -448, 448).astype(ml_dtypes.float8_e4m3fn)
    return (q.astype(np.float32) * scale).astype(np.float32)


def fp8_grid_model(scale):
    """QuantizeLinear/DequantizeLinear to FP8 of a vector, opset 19."""
    zero = helper.make_tensor("z", TensorProto.FLOAT8E4M3FN, [], [0.0])
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])]
    graph = helper.make_graph(
        nodes, "fp8",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])],
        [numpy_helper.from_array(np.array(scale, np.float32), "s"), zero])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)],
                             ir_version=9)


def quantize_calibrated(qdq_opt, source, options, calib, path):
    """qdq-opt's insert-qdq with `options` and calibration, exported to
    `path`; the model (checked) and the scales of its QuantizeLinear nodes
    in program order (fc1's input, then fc2's: the Relu's output)."""
    subprocess.run([qdq_opt, str(source), f"--insert-qdq={options}",
                    f"--calibrate={calib}", "-o", str(path)], check=True)
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    scales = {t.name: t for t in model.graph.initializer}
    return model, [numpy_helper.to_array(scales[n.input[1]])
                   for n in model.graph.node if n.op_type == "QuantizeLinear"]


def run_ort(path, x):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def run_ours(qdq_run, path, x, work):
    np.save(work / "x.npy", x)
    out = work / (path.stem + ".out.npy")
    subprocess.run([qdq_run, str(path), "--input", str(work / "x.npy"),
                    "--output", str(out)], check=True)
    return np.load(out)


def relative(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


def main():
    qdq_opt, qdq_run, work = sys.argv[1:4]
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    model, (w1, b1, w2) = mlp_model(rng)
    onnx.save(model, work / "mlp.onnx")
    x = rng.standard_normal((2, 96)).astype(np.float32)

    # Int4 weight-only, blocks along K.
    int4 = work / "mlp.int4.onnx"
    subprocess.run([qdq_opt, str(work / "mlp.onnx"), "--insert-qdq="
                    f"weight-format=int4 activation-format=none "
                    f"weight-block-size={BLOCK}", "-o", str(int4)], check=True)
    exported = onnx.load(int4)
    onnx.checker.check_model(exported, full_check=True)
    opset = {o.domain: o.version for o in exported.opset_import}[""]
    types = sorted(TensorProto.DataType.Name(t.data_type)
                   for t in exported.graph.initializer
                   if t.data_type in (TensorProto.INT4, TensorProto.UINT4))
    dqs = [n for n in exported.graph.node if n.op_type == "DequantizeLinear"]
    blocks = sorted({a.i for n in dqs for a in n.attribute
                     if a.name == "block_size"})
    print(f"int4: opset {opset}, initializers {types}, "
          f"{len(dqs)} DequantizeLinear, block_size {blocks}, "
          f"QuantizeLinear {sum(n.op_type == 'QuantizeLinear' for n in exported.graph.node)}")
    reference = np.maximum(x @ int4_blocks(w1, 0) + b1, 0) @ int4_blocks(w2, 1).T
    theirs = run_ort(int4, x)
    print(f"int4: ort vs numpy {relative(theirs, reference):.1e}")
    print(f"int4: qdq-run vs ort {relative(run_ours(qdq_run, int4, x, work), theirs):.1e}")
    # Read back and written again: the same model.
    again = work / "mlp.int4.again.onnx"
    subprocess.run([qdq_opt, str(int4), "-o", str(again)], check=True)
    print(f"int4: re-exported vs first {relative(run_ort(again, x), theirs):.1e}")

    # Int16 activations, calibrated; int8 weights per channel.
    np.save(work / "calib.npy", rng.standard_normal((8, 96)).astype(np.float32))
    int16 = work / "mlp.int16.onnx"
    exported, (x_scale, r_scale) = quantize_calibrated(
        qdq_opt, work / "mlp.onnx", "activation-format=int16",
        work / "calib.npy", int16)
    inits = {t.name: numpy_helper.to_array(t) for t in exported.graph.initializer}
    zero_points = sorted({TensorProto.DataType.Name(t.data_type)
                          for t in exported.graph.initializer
                          if t.name.endswith("zero_point")})
    print(f"int16: zero point types {zero_points}")
    wq1 = inits[[n for n in exported.graph.node if n.op_type == "DequantizeLinear"
                 and inits.get(n.input[0]) is not None
                 and inits[n.input[0]].shape == (96, 64)][0].input[0]]
    w1s = np.abs(w1).max(axis=0) / np.float32(127)
    w2s = np.abs(w2).max(axis=1, keepdims=True) / np.float32(127)
    h = fake_quant(x, x_scale, 16) @ (fake_quant(w1, w1s, 8)) + b1
    r = np.maximum(h, 0)
    reference = fake_quant(r, r_scale, 16) @ fake_quant(w2, w2s, 8).T
    theirs = run_ort(int16, x)
    print(f"int16: weights stored as {wq1.dtype}")
    print(f"int16: ort vs numpy {relative(theirs, reference):.1e}")
    print(f"int16: qdq-run vs ort {relative(run_ours(qdq_run, int16, x, work), theirs):.1e}")

    # FP8: every E4M3FN value, the midpoints between neighbours (ties to
    # even), values past 448 (saturated), subnormals, NaN, random values.
    grid = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn)
    grid = np.unique(grid.astype(np.float32)[np.isfinite(grid.astype(np.float32))])
    values = np.concatenate([grid, (grid[1:] + grid[:-1]) / 2, [500, -1e6, 1e-9,
                             np.nan], rng.standard_normal(1000) * 50])
    scale = 0.25
    x8 = (values * scale).astype(np.float32)
    grid_model = work / "fp8.onnx"
    onnx.save(fp8_grid_model(scale), grid_model)
    theirs = run_ort(grid_model, x8)
    ours = run_ours(qdq_run, grid_model, x8, work)
    reference = fp8(x8, np.float32(scale))
    same = lambda a, b: bool(np.array_equal(a, b, equal_nan=True))
    print(f"fp8 grid: {x8.size} values, ort == numpy {same(theirs, reference)}, "
          f"qdq-run == ort {same(ours, theirs)}")

    # FP8 weights and activations on the MLP, calibrated.
    fp8_path = work / "mlp.fp8.onnx"
    exported, (x_scale, r_scale) = quantize_calibrated(
        qdq_opt, work / "mlp.onnx", "weight-format=fp8 activation-format=fp8",
        work / "calib.npy", fp8_path)
    opset = {o.domain: o.version for o in exported.opset_import}[""]
    inits = {t.name: t for t in exported.graph.initializer}
    stored = sorted(TensorProto.DataType.Name(inits[n.input[0]].data_type)
                    for n in exported.graph.node
                    if n.op_type == "DequantizeLinear" and n.input[0] in inits)
    print(f"fp8: opset {opset}, stored weights {stored}")
    w1s = (np.abs(w1).max(axis=0) / np.float32(448)).astype(np.float32)
    w2s = (np.abs(w2).max(axis=1, keepdims=True) / np.float32(448)).astype(
        np.float32)
    r = np.maximum(fp8(x, x_scale) @ fp8(w1, w1s) + b1, 0)
    reference = fp8(r, r_scale) @ fp8(w2, w2s).T
    theirs = run_ort(fp8_path, x)
    print(f"fp8: ort vs numpy {relative(theirs, reference):.1e}")
    print(f"fp8: qdq-run vs ort {relative(run_ours(qdq_run, fp8_path, x, work), theirs):.1e}")


if __name__ == "__main__":
    main()
