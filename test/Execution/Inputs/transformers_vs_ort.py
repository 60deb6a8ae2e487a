#!/usr/bin/env python3
"""Exports small transformers and hybrids with random weights (ViT, Swin,
ConvNeXt from torchvision, and a BERT-like encoder from
torch.nn.TransformerEncoder), runs each in qdq-run and ONNX Runtime, and
prints per model the largest difference relative to the output's range:

    transformers_vs_ort.py QDQ_RUN WORKDIR MODEL [--quantized QDQ_OPT]
                           [--opset N] [--formats INSERT_QDQ_OPTIONS]
                           [-- QDQ_RUN_ARGS...]

The exports have a dynamic batch (and, for the encoder, sequence) and run
at other sizes than exported, so qdq-run specializes them. With
--quantized, the model is first quantized and calibrated by
`qdq-opt --insert-qdq --calibrate`, and the QDQ model is compared;
--formats gives insert-qdq's options (`weight-format=int4 ...`).
"""
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch

# The models are the ones the Python tests quantize.
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "python" / "tests"))
import transformer_models  # noqa: E402


def build(name):
    """(model, example input, input at run time, calibration data)."""
    rng = np.random.RandomState(3)
    images = lambda n, s: rng.rand(n, 3, s, s).astype(np.float32)
    model = transformer_models.make(name)
    if name in ("encoder", "decoder"):
        ids = lambda n, s: rng.randint(0, 100, (n, s)).astype(np.int64)
        return model, torch.zeros(1, 16, dtype=torch.int64), ids(2, 8), ids(4, 8)
    return model, torch.rand(1, 3, 32, 32), images(2, 32), images(4, 32)


def main():
    qdq_run, work, name = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    qdq_opt = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--quantized" else None
    extra = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    # --opset N: the export (opset 17, torch 1.13's newest) converted to N by
    # ONNX's version converter, as newer exporters would write it.
    ours_args = sys.argv[:sys.argv.index("--")] if "--" in sys.argv else sys.argv
    opset = int(ours_args[ours_args.index("--opset") + 1]) if "--opset" in ours_args else 17
    formats = (ours_args[ours_args.index("--formats") + 1]
               if "--formats" in ours_args else None)
    work.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    model, example, x, calib = build(name)
    model.eval()
    path = work / f"{name}.onnx"
    tokens = name in ("encoder", "decoder")
    axes = {0: "batch", 1: "sequence"} if tokens else {0: "batch"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, str(path), opset_version=17,
                          input_names=["input"], output_names=["logits"],
                          dynamic_axes={"input": axes,
                                        "logits": axes if name == "decoder" else {0: "batch"}})
    if opset != 17:
        import onnx
        import onnx.version_converter
        converted = onnx.version_converter.convert_version(onnx.load(str(path)), opset)
        onnx.checker.check_model(converted, full_check=True)
        path = work / f"{name}.opset{opset}.onnx"
        onnx.save(converted, str(path))
    if qdq_opt:
        np.save(work / "calib.npy", calib)
        quantized = work / f"{name}.qdq.onnx"
        insert = f"--insert-qdq={formats}" if formats else "--insert-qdq"
        subprocess.run([qdq_opt, str(path), insert,
                        f"--calibrate=data={work / 'calib.npy'} method=max",
                        "-o", str(quantized)], check=True)
        path = quantized
    np.save(work / "x.npy", x)
    subprocess.run([qdq_run, str(path), "--input", str(work / "x.npy"), "--output",
                    str(work / "y.npy")] + extra, check=True)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    reference = session.run(None, {session.get_inputs()[0].name: x})[0]
    ours = np.load(work / "y.npy")
    quantizers = sum(n.op_type == "QuantizeLinear"
                     for n in __import__("onnx").load(str(path)).graph.node)
    print(f"{name}: opset {opset} shape {ours.shape} ort {reference.shape} "
          f"quantizers {quantizers}")
    if qdq_opt:
        written = next(o.version for o in __import__("onnx").load(str(path)).opset_import
                       if o.domain in ("", "ai.onnx"))
        print(f"{name}: written at opset {written}")
    scale = float(np.abs(reference).max())
    print(f"{name}: max |diff| / max |ort|: {float(np.abs(ours - reference).max()) / scale:.2e}")


if __name__ == "__main__":
    main()
