#!/usr/bin/env python3
"""IREE as a consumer of quant-qdq's lowering: a model of the corpus the
engine runs (torchvision CNNs; the ViT, Swin, ConvNeXt, encoder and
decoders of transformers_vs_ort.py) is quantized and calibrated by
qdq-opt, specialized to its run-time input shapes and lowered to upstream
linalg, compiled by iree-compile for llvm-cpu, run by iree-run-module, and
compared with qdq-run and ONNX Runtime on the QDQ ONNX model:

    iree_vs_qdq_run.py QDQ_OPT QDQ_RUN WORKDIR MODEL [--float]

Prints per model the lowered module's size, iree-compile's time, and the
largest difference from qdq-run's and from ONNX Runtime's outputs (its
graph rewrites off), relative to each output's range. --float compares
the float model instead. iree-compile and iree-run-module are the pinned
iree-base-compiler / iree-base-runtime of requirements.txt, found beside
this interpreter.
"""
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Integration" / "Inputs"))
import export_torchvision  # noqa: E402
import transformers_vs_ort  # noqa: E402

TORCHVISION = ("resnet18", "mobilenet_v2")

# iree-compile 3.13's stream pipeline does not reach its fixed point on
# Swin's hoisted constant expressions ("maximum iteration count exceeded
# in fixed point pipeline"); without hoisting it compiles (docs/OtherStacks.md).
IREE_FLAGS = {"swin": ["--iree-opt-const-expr-hoisting=false"]}


def iree_tool(name):
    """The IREE tool of this interpreter's environment: a missing package
    fails here, saying what to install."""
    tool = Path(sys.executable).parent / name
    if not tool.exists():
        sys.exit(f"{tool} is missing: iree-base-compiler and iree-base-runtime "
                 "(requirements.txt) are installed by scripts/setup.sh")
    return str(tool)


def export(name, work):
    """(ONNX path, run-time inputs, calibration inputs, output count);
    inputs as {name: array}, at the sizes IREE compiles for."""
    path = work / f"{name}.onnx"
    if name in TORCHVISION:
        export_torchvision.export(name, str(path), 32)
        rng = np.random.RandomState(3)
        image = lambda n: rng.rand(n, 3, 32, 32).astype(np.float32)
        return path, {"input": image(1)}, {"input": image(4)}, 1
    x, calib, output_names = transformers_vs_ort.export(name, path)
    return path, x, calib, len(output_names)


def run(command):
    subprocess.run(command, check=True)


def run_iree(command):
    """IREE's tools are not instrumented: the sanitizer build's preloaded
    runtime (test/CMakeLists.txt) stays with quant-qdq's own processes."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    subprocess.run(command, check=True, env=env)


def main():
    qdq_opt, qdq_run, work, name = sys.argv[1:5]
    quantized = "--float" not in sys.argv[5:]
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    model, x, calib, outputs = export(name, work)

    if quantized:
        np.savez(work / "calib.npz", **calib)
        qdq = work / f"{name}.qdq.onnx"
        run([qdq_opt, str(model), "--insert-qdq",
             f"--calibrate=data={work / 'calib.npz'} method=max", "-o", str(qdq)])
        model = qdq

    # The lowering IREE takes: static shapes, then upstream linalg.
    shapes = ",".join("x".join(map(str, a.shape)) for a in x.values())
    linalg = work / f"{name}.linalg.mlir"
    run([qdq_opt, str(model), f"--qdq-specialize-input-shapes={shapes}",
         "--convert-quant-qdq-to-linalg", "-o", str(linalg)])
    text = linalg.read_text()
    # Ops, not the ONNX names kept as attributes (quant_qdq.onnx.name).
    leftover = sorted(set(re.findall(r'(?:=\s*|^\s*)"?(quant_qdq\.\w+)', text,
                                     re.MULTILINE)))
    if leftover:
        sys.exit(f"{linalg}: quant_qdq ops left after the lowering: {leftover}")
    entry = re.search(r"func\.func @([\w$.-]+)\(", text).group(1)

    vmfb = work / f"{name}.vmfb"
    start = time.perf_counter()
    run_iree([iree_tool("iree-compile"), str(linalg),
         "--iree-hal-target-device=local",
         "--iree-hal-local-target-device-backends=llvm-cpu",
         "--iree-llvmcpu-target-cpu=host", *IREE_FLAGS.get(name, []),
         "-o", str(vmfb)])
    seconds = time.perf_counter() - start

    inputs = []
    for i, (input_name, array) in enumerate(x.items()):
        np.save(work / f"x{i}.npy", array)
        inputs.append(f"--input=@{work / f'x{i}.npy'}")
    iree_out = [work / f"iree{i}.npy" for i in range(outputs)]
    run_iree([iree_tool("iree-run-module"), f"--module={vmfb}", "--device=local-task",
         f"--function={entry}", *inputs,
         *[f"--output=@{o}" for o in iree_out]])

    np.savez(work / "x.npz", **x)
    ours_out = [work / f"ours{i}.npy" for i in range(outputs)]
    run([qdq_run, str(model), "--input", str(work / "x.npz"),
         *[a for o in ours_out for a in ("--output", str(o))]])

    # ONNX Runtime, its graph rewrites off, runs the Q/DQ as written.
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(model), options,
                                   providers=["CPUExecutionProvider"])
    references = session.run(None, x)

    iree = [np.load(o) for o in iree_out]
    ours = [np.load(o) for o in ours_out]
    for a, b, r in zip(iree, ours, references):
        if not a.shape == b.shape == r.shape:
            sys.exit(f"{name}: output shapes differ: IREE {a.shape}, "
                     f"qdq-run {b.shape}, ONNX Runtime {r.shape}")

    def worst(outputs, baselines):
        """The largest difference, relative to each baseline's range."""
        return max(float(np.abs(a - b).max()) / max(float(np.abs(b).max()), 1e-30)
                   for a, b in zip(outputs, baselines))

    kind = "int8" if quantized else "float"
    print(f"{name} ({kind}): linalg {len(text) // 1024} KiB, "
          f"iree-compile {seconds:.1f} s, outputs {outputs} shape {ours[0].shape}")
    print(f"{name} ({kind}): max |iree - qdq-run| / max |qdq-run|: "
          f"{worst(iree, ours):.2e}")
    print(f"{name} ({kind}): max |iree - ort| / max |ort|: "
          f"{worst(iree, references):.2e}")


if __name__ == "__main__":
    main()
