#!/usr/bin/env python3
"""Exports small transformers and hybrids with random weights (ViT, Swin,
ConvNeXt from torchvision, a BERT-like encoder from
torch.nn.TransformerEncoder, a Llama-shaped decoder, and its decode step
with a key/value cache), runs each in qdq-run and ONNX Runtime on inputs
given as one .npz file, and prints per model the largest difference
relative to an output's range:

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


LAYERS = 2  # The decoders' blocks, each with a key and a value cache.


def cache_names(prefix):
    return [f"{prefix}_{kind}_{i}" for i in range(LAYERS) for kind in ("key", "value")]


def build(name):
    """(model, example inputs, input names, inputs at run time, calibration
    data); inputs as {name: array}."""
    rng = np.random.RandomState(3)
    images = lambda n, s: rng.rand(n, 3, s, s).astype(np.float32)
    ids = lambda n, s: rng.randint(0, 100, (n, s)).astype(np.int64)
    model = transformer_models.make(name)
    if name == "decoder-cached":
        # A decode step: one new token after 5 cached positions.
        names = ["input_ids"] + cache_names("past")
        past = lambda n, p: [rng.standard_normal((n, 2, p, 8)).astype(np.float32)
                             for _ in range(2 * LAYERS)]
        example = (torch.zeros(1, 2, dtype=torch.int64),
                   *[torch.zeros(1, 2, 3, 8) for _ in range(2 * LAYERS)])
        feeds = lambda n, s, p: dict(zip(names, [ids(n, s)] + past(n, p)))
        return model, example, names, feeds(2, 1, 5), feeds(4, 1, 5)
    if name in ("encoder", "decoder"):
        return (model, (torch.zeros(1, 16, dtype=torch.int64),), ["input"],
                {"input": ids(2, 8)}, {"input": ids(4, 8)})
    return (model, (torch.rand(1, 3, 32, 32),), ["input"],
            {"input": images(2, 32)}, {"input": images(4, 32)})


def dynamic_axes(name):
    if name == "decoder-cached":
        cache = {0: "batch", 2: "past"}
        axes = {"input_ids": {0: "batch", 1: "sequence"},
                "logits": {0: "batch", 1: "sequence"}}
        axes.update({n: cache for n in cache_names("past") + cache_names("present")})
        return axes
    tokens = name in ("encoder", "decoder")
    axes = {0: "batch", 1: "sequence"} if tokens else {0: "batch"}
    return {"input": axes, "logits": axes if name == "decoder" else {0: "batch"}}


def export(name, path):
    """Exports model `name` to `path` at opset 17 with its dynamic axes, as
    torch 1.13 does; returns (inputs at run time, calibration data, output
    names), inputs as {name: array}."""
    torch.manual_seed(0)
    model, example, input_names, x, calib = build(name)
    model.eval()
    output_names = ["logits"] + (cache_names("present") if name == "decoder-cached" else [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, str(path), opset_version=17,
                          input_names=input_names, output_names=output_names,
                          dynamic_axes=dynamic_axes(name))
    return x, calib, output_names


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
    path = work / f"{name}.onnx"
    x, calib, output_names = export(name, path)
    if opset != 17:
        import onnx
        import onnx.version_converter
        converted = onnx.version_converter.convert_version(onnx.load(str(path)), opset)
        onnx.checker.check_model(converted, full_check=True)
        path = work / f"{name}.opset{opset}.onnx"
        onnx.save(converted, str(path))
    if qdq_opt:
        # Calibration data and inputs as .npz files of arrays named after
        # the model's inputs.
        np.savez(work / "calib.npz", **calib)
        quantized = work / f"{name}.qdq.onnx"
        insert = f"--insert-qdq={formats}" if formats else "--insert-qdq"
        subprocess.run([qdq_opt, str(path), insert,
                        f"--calibrate=data={work / 'calib.npz'} method=max",
                        "-o", str(quantized)], check=True)
        path = quantized
    np.savez(work / "x.npz", **x)
    outputs = [str(work / f"y{i}.npy") for i in range(len(output_names))]
    subprocess.run([qdq_run, str(path), "--input", str(work / "x.npz")]
                   + [a for o in outputs for a in ("--output", o)] + extra, check=True)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    references = session.run(None, x)
    ours = [np.load(o) for o in outputs]
    quantizers = sum(n.op_type == "QuantizeLinear"
                     for n in __import__("onnx").load(str(path)).graph.node)
    print(f"{name}: opset {opset} shape {ours[0].shape} ort {references[0].shape} "
          f"quantizers {quantizers}")
    if qdq_opt:
        written = next(o.version for o in __import__("onnx").load(str(path)).opset_import
                       if o.domain in ("", "ai.onnx"))
        print(f"{name}: written at opset {written}")
        graph = __import__("onnx").load(str(path)).graph
        producers = {out: n.op_type for n in graph.node for out in n.output}
        present = [o.name for o in graph.output if o.name.startswith("present")]
        if present:
            dequantized = sum(producers.get(o) == "DequantizeLinear"
                              for o in present)
            print(f"{name}: present outputs from DequantizeLinear: "
                  f"{dequantized}/{len(present)}")
    # The largest difference over the outputs, each relative to its range.
    worst = max(float(np.abs(o - r).max()) / float(np.abs(r).max())
                for o, r in zip(ours, references))
    print(f"{name}: max |diff| / max |ort|: {worst:.2e}")

if __name__ == "__main__":
    main()
