#!/usr/bin/env python3
"""A Hugging Face decoder (python/tests/hf_decoders.py: Llama, Qwen2, Phi3
or GPT-2 from a small config, exported by Optimum with its key/value
cache) in float and quantized, run by qdq-run and ONNX Runtime on a
left-padded prompt from an empty cache and on the decode step after it:

    hf_decoders_vs_ort.py QDQ_RUN QDQ_OPT WORKDIR ARCHITECTURE

Prints, per variant, the largest difference over the outputs relative to
each output's range, whether the full ONNX checker accepts the file, and
for the quantized ones the logits' SQNR against the float model (both in
ONNX Runtime) and what the cache outputs come from. Variants:
- float: the export as it is;
- w8a8-kv8: `--insert-qdq="cases=transformer kv-cache=int8"` calibrated on
  random prompts;
- int4-nbits: int4 weight-only blocks of 32 written as MatMulNBits
  (`--onnx-matmul-nbits`), which qdq-run imports back.
"""
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "python" / "tests"))
import hf_decoders  # noqa: E402


def ort_outputs(path, feeds):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))


def qdq_run_outputs(qdq_run, path, feeds, work, tag):
    np.savez(work / f"{tag}.npz", **feeds)
    names = [o.name for o in onnx.load(str(path), load_external_data=False).graph.output]
    files = [work / f"{tag}.{n}.npy" for n in names]
    subprocess.run([qdq_run, str(path), f"--input={work / f'{tag}.npz'}"]
                   + [f"--output={f}" for f in files], check=True)
    return {n: np.load(f) for n, f in zip(names, files)}


def worst_difference(ours, references):
    return max(float(np.abs(ours[n] - r).max()) / float(np.abs(r).max())
               for n, r in references.items())


def sqnr_db(reference, candidate):
    noise = float(((reference - candidate) ** 2).sum())
    return 10 * np.log10(float((reference ** 2).sum()) / max(noise, 1e-30))


def main():
    qdq_run, qdq_opt, work, name = sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4]
    work.mkdir(parents=True, exist_ok=True)
    model = hf_decoders.export(name, work, validate=False)
    prefill, decode = hf_decoders.prefill_and_decode(model)
    np.savez(work / "calibration.npz", **hf_decoders.calibration(model))
    steps = {"prefill": prefill, "decode": decode}
    floats = {step: ort_outputs(model, feeds) for step, feeds in steps.items()}

    variants = {
        "float": (model, None),
        "w8a8-kv8": (work / "w8a8-kv8.onnx",
                     ["--insert-qdq=cases=transformer kv-cache=int8",
                      f"--calibrate={work / 'calibration.npz'}"]),
        "int4-nbits": (work / "int4-nbits.onnx",
                       ["--insert-qdq=weight-format=int4 activation-format=none "
                        "weight-block-size=32", "--onnx-matmul-nbits"]),
    }
    for variant, (path, options) in variants.items():
        if options:
            subprocess.run([qdq_opt, str(model), *options, "-o", str(path)], check=True)
        written = onnx.load(str(path))
        onnx.checker.check_model(written, full_check=True)
        ops = {}
        for node in written.graph.node:
            ops[node.op_type] = ops.get(node.op_type, 0) + 1
        producers = {out: n.op_type for n in written.graph.node for out in n.output}
        present = sorted({producers.get(o.name, "input") for o in written.graph.output
                          if o.name.startswith("present")})
        print(f"{name} {variant}: checker ok; QuantizeLinear {ops.get('QuantizeLinear', 0)} "
              f"DequantizeLinear {ops.get('DequantizeLinear', 0)} "
              f"MatMulNBits {ops.get('MatMulNBits', 0)}; present from {','.join(present)}")
        for step, feeds in steps.items():
            references = ort_outputs(path, feeds)
            ours = qdq_run_outputs(qdq_run, path, feeds, work, f"{variant}.{step}")
            line = (f"{name} {variant} {step}: logits {ours['logits'].shape} "
                    f"max |diff| / max |ort|: {worst_difference(ours, references):.2e}")
            if options:
                line += (f"; logits SQNR vs float "
                         f"{sqnr_db(floats[step]['logits'], references['logits']):.1f} dB")
            print(line)


if __name__ == "__main__":
    main()
