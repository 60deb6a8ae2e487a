#!/usr/bin/env python3
"""Int4 weight-only quantization side by side: quant-qdq against TensorRT
Model Optimizer's ONNX int4 path, on the same files, calibration data and
runtime, round to nearest and activation-aware (AWQ-lite) each.

    quant-qdq   qdq-opt model.onnx --qdq-quantize="weight-format=int4
                activation-format=none weight-block-size=B [awq=true
                data=calib.npy]" -o out.onnx
    Model Opt.  modelopt.onnx.quantization.int4.quantize(model,
                calibration_method="rtn_dq" | "awq_lite", block_size=B,
                calibration_eps=["cpu"], nodes_to_exclude=[])

Models: a perceptron whose inputs have 8 salient channels of 128 (25x the
others; the case AWQ is for), the digits perceptron (trained in-tree,
top-1 on the 540 held-out digits), and a 2-layer BERT-shaped encoder
(random weights, random token ids). SQNR is of the outputs against the
float model's on held-out inputs, in ONNX Runtime with its rewrites off.
Times are wall times of the whole quantization, each tool in this
process's child (quant-qdq) or in-process (Model Optimizer, after a warm-up
import).

usage: bench/peers/int4.py [build-dir]
"""
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
from common import models, ort  # noqa: E402

build = Path(sys.argv[1]) if len(sys.argv) > 1 else here.parent.parent / "build"
qdq_opt = build / "bin" / "qdq-opt"


def salient_mlp(work):
    """x[n, 128] -> MatMul[128, 64] -> Relu -> MatMul[64, 16]; the first 8
    input channels 25 times the others."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((128, 64)) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((64, 16)) * 0.1).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
         helper.make_node("Relu", ["h"], ["r"], name="relu"),
         helper.make_node("MatMul", ["r", "w2"], ["y"], name="fc2")], "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 128])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 16])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    path = work / "salient_mlp.onnx"
    onnx.save(helper.make_model(graph, ir_version=8,
                                opset_imports=[helper.make_opsetid("", 17)]),
              path)

    def data(n, seed):
        x = np.random.default_rng(seed).standard_normal((n, 128)).astype(
            np.float32)
        x[:, :8] *= 25
        return x
    return models.BenchModel(name="salient_mlp", onnx=path, case=None,
                             calibration=data(256, 1),
                             evaluation=[data(512, 2)])


def quant_qdq(model, work, block, awq):
    out = work / f"{model.name}.qq.{'awq' if awq else 'rtn'}.onnx"
    options = (f"weight-format=int4 activation-format=none "
               f"weight-block-size={block}")
    if awq:
        options += f" awq=true data={work / 'calib.npy'}"
    start = time.time()
    subprocess.run([str(qdq_opt), str(model.onnx), f"--qdq-quantize={options}",
                    "-o", str(out)], check=True, stderr=subprocess.DEVNULL)
    return out, time.time() - start


def model_optimizer(model, work, block, awq):
    from modelopt.onnx.quantization import int4
    name = onnx.load(str(model.onnx)).graph.input[0].name
    reader = ort.calibration_reader(name, model.calibration)

    start = time.time()
    quantized = int4.quantize(
        str(model.onnx), calibration_method="awq_lite" if awq else "rtn_dq",
        calibration_data_reader=reader, calibration_eps=["cpu"],
        block_size=block, nodes_to_exclude=[], use_external_data_format=False,
        log_level="ERROR")
    seconds = time.time() - start
    # Model Optimizer 0.47 writes DequantizeLinear with block_size but keeps
    # the model's opset (17 here), which ONNX Runtime rejects: its models
    # are scored at opset 21, the first that has block_size.
    note = ""
    for opset in quantized.opset_import:
        if opset.domain in ("", "ai.onnx") and opset.version < 21:
            note = f"opset {opset.version} raised to 21 to run"
            opset.version = 21
    quantized.ir_version = max(quantized.ir_version, 10)
    out = work / f"{model.name}.mo.{'awq' if awq else 'rtn'}.onnx"
    onnx.save(quantized, str(out))
    return out, seconds, note


def percent(top1):
    return "-" if top1 is None else f"{top1:.2f}%"


def score(path, model, reference):
    outputs = ort.outputs(path, model.evaluation, optimize=False)
    top1 = (ort.top1_percent(outputs, model.labels)
            if model.labels is not None else None)
    return ort.sqnr_db(reference, outputs), top1


def main():
    work = Path(tempfile.mkdtemp(prefix="qdq-int4-"))
    import modelopt.onnx.quantization.int4  # noqa: F401 (import time apart)
    runs = [(salient_mlp(work), 32),
            (models.digits_mlp(work), 32),
            (models.bert_like(work, layers=2), 128)]
    print(f"{'model':<12} {'tool':<10} {'method':<8} {'SQNR dB':>8} "
          f"{'top-1':>7} {'seconds':>8}  note")
    for model, block in runs:
        np.save(work / "calib.npy", model.calibration)
        reference = ort.outputs(model.onnx, model.evaluation, optimize=False)
        for awq in (False, True):
            method = "awq-lite" if awq else "rtn"
            path, seconds = quant_qdq(model, work, block, awq)
            sqnr, top1 = score(path, model, reference)
            print(f"{model.name:<12} {'quant-qdq':<10} {method:<8} "
                  f"{sqnr:>8.2f} {percent(top1):>7} {seconds:>8.2f}")
            path, seconds, note = model_optimizer(model, work, block, awq)
            try:
                sqnr, top1 = score(path, model, reference)
            except Exception as error:  # the peer's model does not run
                reason = str(error).split("Status Message: ")[-1]
                print(f"{model.name:<12} {'modelopt':<10} {method:<8} "
                      f"{'-':>8} {'-':>7} {seconds:>8.2f}  ONNX Runtime "
                      f"refuses it: {reason.split(' was false.')[-1].strip()}")
                continue
            print(f"{model.name:<12} {'modelopt':<10} {method:<8} "
                  f"{sqnr:>8.2f} {percent(top1):>7} {seconds:>8.2f}  {note}")


if __name__ == "__main__":
    main()
