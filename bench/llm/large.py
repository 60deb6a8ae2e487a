#!/usr/bin/env python3
"""A decoder over 2 GiB through the whole decoder path: a Hugging Face
Llama of python/tests/hf_decoders.py's "large" size (603M parameters,
random weights) exported by Optimum with its key/value cache, its weights
in 2.41 GB of external data, then

- run by qdq-run and by ONNX Runtime on a prompt and the decode step after
  it (the largest difference over the outputs, relative to each output's
  range);
- quantized by qdq-opt (int4 weight-only in blocks of 128, as blocked
  DequantizeLinear and as MatMulNBits; W8A8, alone and with the int8
  cache, calibrated on random prompts) and by ONNX Runtime's MatMulNBits
  quantizer (RTN, the same blocks) and its quantize_static (W8A8 on
  MatMul, the same prompts), each file through ONNX's full checker and run in
  ONNX Runtime: logits SQNR and top-1 agreement against FP32, the
  quantization's wall time and peak RSS, and qdq-run against ONNX Runtime
  on the quantized model.

The weights are random, so the SQNR figures say how much noise a format
adds, not how a trained model's accuracy fares (run.py does that).

usage: bench/llm/large.py [--build build] [--work DIR] [--markdown FILE]
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
sys.path.insert(0, str(here.parent.parent / "python" / "tests"))
import hf_decoders  # noqa: E402
from common import ort as bench_ort  # noqa: E402
from common.table import MarkdownTable  # noqa: E402
from llm import run  # noqa: E402

BLOCK = 128
HEADER = ("| step | tool | what | logits SQNR dB (prefill / decode) | top-1 "
          "agreement % | qdq-run vs ORT | checker | s | peak RSS MiB | size MB |")


def export_worker(folder):
    """Exports the model (in a process of its own, to measure it)."""
    hf_decoders.export("llama", folder, size="large", validate=False)


def ort_nbits_worker(model, out):
    """ONNX Runtime's MatMulNBitsQuantizer, RTN (its default), symmetric,
    blocks of BLOCK, saved with external data."""
    import onnx
    from onnxruntime.quantization import matmul_nbits_quantizer as nbits
    config = nbits.DefaultWeightOnlyQuantConfig(block_size=BLOCK, is_symmetric=True)
    quantizer = nbits.MatMulNBitsQuantizer(onnx.load(model), block_size=BLOCK,
                                           is_symmetric=True, algo_config=config)
    quantizer.process()
    quantizer.model.save_model_to_file(out, use_external_data_format=True)


def ort_static_worker(model, calibration, out):
    """ONNX Runtime's quantize_static as bench/llm/hf.py runs it on MatMul
    only (QDQ, int8 symmetric, per-channel weights, MinMax), fed the
    calibration prompts one a batch, saved with external data."""
    from onnxruntime.quantization import (CalibrationMethod, QuantFormat,
                                          QuantType, quantize_static)
    quantize_static(
        model, out, bench_ort.calibration_reader_feeds(np.load(calibration)),
        quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8,
        weight_type=QuantType.QInt8, per_channel=True,
        calibrate_method=CalibrationMethod.MinMax, op_types_to_quantize=["MatMul"],
        use_external_data_format=True,
        extra_options={"ActivationSymmetric": True, "WeightSymmetric": True,
                       "CalibTensorRangeSymmetric": True})


def self_command(*arguments):
    return [sys.executable, Path(__file__).resolve(), "--worker", *map(str, arguments)]


def qdq_run_outputs(build, model, feeds_file, work, tag):
    """qdq-run's outputs, {name: array}."""
    import onnx
    names = [o.name for o in onnx.load(str(model), load_external_data=False).graph.output]
    files = [work / f"{tag}.{n}.npy" for n in names]
    subprocess.run([str(build / "bin" / "qdq-run"), str(model), f"--input={feeds_file}"]
                   + [f"--output={f}" for f in files], check=True,
                   stdout=subprocess.DEVNULL)
    return {n: np.load(f) for n, f in zip(names, files)}


def ort_outputs(model, feeds):
    session = bench_ort.session(model, optimize=False)
    return dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))


def worst_difference(ours, reference):
    return max(float(np.abs(ours[n] - r).max() / np.abs(r).max())
               for n, r in reference.items())


def size_mb(model):
    return sum(p.stat().st_size for p in model.parent.glob(model.name + "*")) / 1e6


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker = {"export": export_worker, "ort-nbits": ort_nbits_worker,
                  "ort-static": ort_static_worker}[sys.argv[2]]
        return worker(*sys.argv[3:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=str(here.parent.parent / "build"))
    parser.add_argument("--work", help="folder for the models (default: a new "
                        "temporary one; about 6 GB)")
    parser.add_argument("--markdown", help="also write the table there")
    args = parser.parse_args()
    build = Path(args.build).resolve()
    work = Path(args.work or tempfile.mkdtemp(prefix="qdq-large-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    import onnx
    import onnxruntime
    print(f"# {run.machine()}; onnxruntime {onnxruntime.__version__}; models in "
          f"{work}", flush=True)
    table = MarkdownTable(HEADER)
    emit = table.add
    status, seconds, rss, message = run.measured(self_command("export", work))
    model = work / "onnx" / "model.onnx"
    if status:
        raise SystemExit(f"the export failed: {message}")
    parameters = sum(int(np.prod(t.dims)) for t in
                     onnx.load(str(model), load_external_data=False).graph.initializer)
    emit("export", "Optimum", f"Llama, {parameters / 1e6:.0f}M parameters, "
         "opset 17, external data", "", "", "", "", f"{seconds:.0f}", f"{rss:.0f}",
         f"{size_mb(model):.0f}")

    prefill, decode = hf_decoders.prefill_and_decode(
        model, batch=1, prompt=16, padding=0, vocab=32000)
    steps = {"prefill": prefill, "decode": decode}
    for step, feeds in steps.items():
        np.savez(work / f"{step}.npz", **feeds)
    np.savez(work / "calibration.npz", **hf_decoders.calibration(
        model, batch=8, sequence=32, vocab=32000))
    fp32 = {step: ort_outputs(model, feeds) for step, feeds in steps.items()}

    def judged(path):
        """(SQNR cell, top-1 cell, qdq-run vs ORT cell, checker cell)."""
        try:
            onnx.checker.check_model(str(path), full_check=True)
            checker = "passes"
        except Exception as error:  # noqa: BLE001 — reported as a result
            checker = f"fails: {str(error).splitlines()[0][:200]}"
        sqnr, top1, ours = [], [], []
        for step, feeds in steps.items():
            reference = ort_outputs(path, feeds)
            sqnr.append(f"{run.sqnr_db(fp32[step]['logits'], reference['logits']):.1f}")
            top1.append(f"{100 * np.mean(reference['logits'].argmax(-1) == fp32[step]['logits'].argmax(-1)):.0f}")
            ours.append(worst_difference(qdq_run_outputs(
                build, path, work / f"{step}.npz", work, f"{path.stem}.{step}"), reference))
        return (" / ".join(sqnr), " / ".join(top1),
                f"{max(ours):.1e} of the range", checker)

    # Float: qdq-run against ONNX Runtime, timed as a process.
    names = [o.name for o in onnx.load(str(model), load_external_data=False).graph.output]
    for step in steps:
        command = [build / "bin" / "qdq-run", model, f"--input={work / f'{step}.npz'}"] + [
            f"--output={work / f'fp32.{step}.{n}.npy'}" for n in names]
        status, seconds, rss, message = run.measured(command)
        if status:
            raise SystemExit(f"qdq-run failed on the float model: {message}")
        ours = {n: np.load(work / f"fp32.{step}.{n}.npy") for n in names}
        emit(f"run, {step}", "qdq-run", "FP32, compile and run", "", "",
             f"{worst_difference(ours, fp32[step]):.1e} of the range", "",
             f"{seconds:.1f}", f"{rss:.0f}", "")

    int4 = run.int4(BLOCK)
    out = {name: work / f"{name}.onnx" for name in ("int4", "int4-nbits", "ort-nbits",
                                                   "w8a8", "ort-static", "w8a8-kv8")}
    methods = [
        ("quant-qdq", f"int4 RTN, blocks of {BLOCK}, DequantizeLinear", out["int4"],
         run.ours(build, model, out["int4"], int4)),
        ("quant-qdq", f"int4 RTN, blocks of {BLOCK}, MatMulNBits", out["int4-nbits"],
         run.ours(build, model, out["int4-nbits"], int4, "--onnx-matmul-nbits")),
        ("ORT MatMulNBits", f"int4 RTN (default), blocks of {BLOCK}", out["ort-nbits"],
         self_command("ort-nbits", model, out["ort-nbits"])),
        ("quant-qdq", "W8A8, max, 8 x 32 random tokens", out["w8a8"],
         run.ours(build, model, out["w8a8"], "--insert-qdq=transformer",
                  f"--calibrate={work / 'calibration.npz'}")),
        ("ORT-Q", "W8A8 quantize_static MinMax, MatMul only, the same tokens",
         out["ort-static"],
         self_command("ort-static", model, work / "calibration.npz", out["ort-static"])),
        ("quant-qdq", "W8A8 + int8 KV cache, max, 8 x 32 random tokens",
         out["w8a8-kv8"],
         run.ours(build, model, out["w8a8-kv8"],
                  "--insert-qdq=cases=transformer kv-cache=int8",
                  f"--calibrate={work / 'calibration.npz'}")),
    ]
    for tool, what, path, command in methods:
        status, seconds, rss, message = run.measured(command)
        if status or not path.exists():
            emit("quantize", tool, what, "", "", "", "", f"{seconds:.1f}", f"{rss:.0f}",
                 f"failed: {message}")
            continue
        emit("quantize", tool, what, *judged(path), f"{seconds:.1f}", f"{rss:.0f}",
             f"{size_mb(path):.0f}")
    table.write(args.markdown)


if __name__ == "__main__":
    main()
