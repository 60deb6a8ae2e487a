#!/usr/bin/env python3
"""What each quantization method does to Hugging Face decoders as their
users export them: Llama, Qwen2, Phi3 and GPT-2 at the "small" size of
python/tests/hf_decoders.py (hidden 256, MLP 768, 4 layers, 8 heads,
vocabulary 2048), random weights (seed 0), each exported once by Optimum
(text-generation-with-past, opset 17: input_ids, attention_mask,
position_ids and past_key_values.<layer>.key|value in, logits and
present.<layer>.key|value out); quant-qdq and its peers side by side on
the same file, calibration data and runtime, as run.py does for the
trained byte-level model.

Data (random tokens; nothing learned, so no perplexity):
- calibration: hf_decoders.calibration, 32 prompts x 64 tokens from an
  empty cache (seed 1), saved as calibration.npz, one array per graph
  input (the past_key_values.* of length 0);
- prefill: 16 other prompts x 64 tokens from an empty cache (seed 2);
- decode: hf_decoders.prefill_and_decode (seed 3), 64 prompts of 64
  tokens (the first left-padded by 2) and the one-token step after them.
  Each model runs the prompts itself and the step reads the cache that
  model wrote (as a runtime would), so a quantized cache is measured
  where it matters; the step's logits are scored.

Scores, in ONNX Runtime with its graph rewrites off (Q/DQ computed as
written), against the FP32 export on the same feeds: logits SQNR (dB) and
top-1 agreement (% of positions whose argmax agrees), prefill and decode;
the quantization's wall time and peak RSS (run.measured: a process of its
own, started by a small launcher, with a timeout); whether
onnx.checker.check_model(full_check=True) accepts the file; and how many
of the dense layers with a constant weight (MatMul, Gemm) the tool
quantized (GPT-2's Conv1D layers export as Gemm, which some peers leave
in float).

Methods (C = calibration.npz):
- ours, qdq-opt model.onnx ...:
  W8A8 --insert-qdq=transformer --calibrate=data=C; with SmoothQuant
  --qdq-smooth="data=C alpha=auto" before the calibration; with the
  key/value cache in int8 --insert-qdq="cases=transformer kv-cache=int8";
  FP8 --insert-qdq="cases=transformer weight-format=fp8
  activation-format=fp8"; int4 weight-only in blocks of 32 and 128
  (--insert-qdq="weight-format=int4 activation-format=none
  weight-block-size=B"): RTN, GPTQ (--qdq-gptq=data=C), AWQ
  (--qdq-awq=data=C), and RTN written as MatMulNBits
  (--onnx-matmul-nbits);
- the peers, run.py's (run.py --worker, a process each), fed C through a
  CalibrationDataReader one prompt (every input) a batch: ONNX Runtime's
  quantize_static (QDQ, int8 symmetric, per-channel weights, MinMax; its
  default op types, and MatMul only); its MatMulNBitsQuantizer (4 bits,
  symmetric, blocks of 32 and 128: default RTN and HQQ); Model
  Optimizer's int8 quantize (max) and int4.quantize (rtn_dq, awq_lite;
  written at opset 17 with block_size DequantizeLinear, converted to 21 to
  run).

A tool that fails gets a row with its error line; ONNX Runtime refusing a
model, a row with its message. Everything runs on the CPU; the data are
fixed, so a second run gives the same figures but the times.

usage: bench/llm/hf.py [--build build] [--work DIR] [--markdown table.md]
                       [--only SUBSTRING,...] [--architectures llama,gpt2]
                       [--timeout 900]

(--only: the rows whose "section tool method" contains one of the
substrings, e.g. --only "ORT-Q,blocks of 32"; the FP32 rows always run.)
"""
import argparse
import hashlib
import json
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
from llm import lm, run  # noqa: E402

SIZE = "small"
VOCAB = hf_decoders.SIZES[SIZE]["vocab"]
CALIBRATION = dict(batch=32, sequence=64, seed=1)
PREFILL = dict(batch=16, sequence=64, seed=2)
DECODE = dict(batch=64, prompt=64, padding=2, seed=3)
BLOCKS = (32, 128)


def methods(calib):
    """(section, tool, method, how) per row, in the order they run; `how`
    is qdq-opt's options (a list) or a peer's run.py --worker arguments
    after the model, data and output (a tuple)."""
    C = calib
    transformer = "--insert-qdq=transformer"
    rows = [
        ("W8A8", "quant-qdq", "max", [transformer, f"--calibrate=data={C}"]),
        ("W8A8", "quant-qdq", "SmoothQuant alpha auto, max",
         [transformer, f"--qdq-smooth=data={C} alpha=auto",
          f"--calibrate=data={C}"]),
        ("W8A8", "quant-qdq", "KV cache int8, max",
         ["--insert-qdq=cases=transformer kv-cache=int8",
          f"--calibrate=data={C}"]),
        ("W8A8", "ORT-Q", "quantize_static MinMax", ("ort-static", "default")),
        ("W8A8", "ORT-Q", "quantize_static MinMax, MatMul only",
         ("ort-static", "matmul")),
        ("W8A8", "ModelOpt", "int8 max", ("modelopt-int8",)),
        ("FP8 E4M3FN weights and activations", "quant-qdq", "FP8, max",
         ["--insert-qdq=cases=transformer weight-format=fp8 "
          "activation-format=fp8", f"--calibrate=data={C}"]),
    ]
    for block in BLOCKS:
        section = f"int4 weight-only, blocks of {block}"
        rows += [
            (section, "quant-qdq", "RTN", [run.int4(block)]),
            (section, "quant-qdq", "GPTQ",
             [run.int4(block), f"--qdq-gptq=data={C}"]),
            (section, "quant-qdq", "AWQ",
             [run.int4(block), f"--qdq-awq=data={C}"]),
            (section, "quant-qdq", "RTN as MatMulNBits",
             [run.int4(block), "--onnx-matmul-nbits"]),
            (section, "ORT MatMulNBits", "default (RTN)",
             ("ort-nbits", "default", block)),
            (section, "ORT MatMulNBits", "HQQ", ("ort-nbits", "hqq", block)),
            (section, "ModelOpt", "rtn_dq",
             ("modelopt-int4", "rtn_dq", block, "fuse")),
            (section, "ModelOpt", "awq_lite",
             ("modelopt-int4", "awq_lite", block, "fuse")),
        ]
    return rows


# --- the models and their data -------------------------------------------

def export(name, folder):
    """`folder`/onnx/model.onnx, Optimum's export of the architecture at
    SIZE (random weights, seed 0), made in a process of its own whose
    output (Optimum's and transformers' messages) goes to export.log."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "export.log", "w") as log:
        subprocess.run([sys.executable, __file__, "--export", name,
                        str(folder)], check=True, stdout=log, stderr=log)
    return folder / "onnx" / "model.onnx"


def prompts(model, batch, sequence, seed):
    """`batch` prompts of `sequence` random tokens from an empty cache."""
    rng = np.random.default_rng(seed)
    return hf_decoders.step_feeds(
        model, rng.integers(0, VOCAB, (batch, sequence)),
        np.ones((batch, sequence), np.int64), None)


def quantized_layers(path):
    """"k/n": of the n dense layers with a constant weight (MatMul, Gemm,
    MatMulNBits), the k whose weight is quantized (a DequantizeLinear on
    the way from the initializer, through Transpose, Reshape, Cast or a
    QuantizeLinear, or a MatMulNBits); e.g. a tool that quantizes MatMul
    and leaves Gemm (GPT-2's Conv1D layers) in float."""
    import onnx
    graph = onnx.load(str(path), load_external_data=False).graph
    producer = {o: n for n in graph.node for o in n.output}
    constants = {i.name for i in graph.initializer} | {
        o for n in graph.node if n.op_type == "Constant" for o in n.output}

    def weight(name):
        """(whether it comes from a constant, whether dequantized)"""
        quantized = False
        while name in producer and producer[name].op_type in (
                "Transpose", "Reshape", "Cast", "QuantizeLinear",
                "DequantizeLinear"):
            quantized |= producer[name].op_type == "DequantizeLinear"
            name = producer[name].input[0]
        return name in constants, quantized

    layers = [(True, True) if n.op_type == "MatMulNBits"
              else weight(n.input[1])
              for n in graph.node
              if n.op_type in ("MatMul", "Gemm", "MatMulNBits")]
    return (f"{sum(c and q for c, q in layers)}/"
            f"{sum(c for c, _ in layers)}")


def checker(path):
    """"yes", or "no: " and the first line of the full checker's complaint."""
    import onnx
    try:
        onnx.checker.check_model(str(path), full_check=True)
        return "yes"
    except Exception as error:  # onnx's ValidationError, shape inference's
        return "no: " + str(error).strip().splitlines()[0][:200]


class Scorer:
    """Logits on the prefill prompts, and on the decode step after the
    decode prompts with the cache the model itself wrote; SQNR and top-1
    agreement against the FP32 export's."""

    def __init__(self, model):
        self.prefill = prompts(model, **PREFILL)
        self.prompt, self.step = hf_decoders.prefill_and_decode(
            model, new=1, vocab=VOCAB, **DECODE)
        self.past = list(hf_decoders.cache_inputs(model))
        self.reference = self.logits(model)

    def logits(self, path):
        """{"prefill": logits, "decode": logits} of the model at `path`."""
        session = bench_ort.session(path, optimize=False, threads=1)
        outputs = [o.name for o in session.get_outputs()]
        prefill = session.run(["logits"], self.prefill)[0]
        prompt = dict(zip(outputs, session.run(None, self.prompt)))
        step = dict(self.step, **{
            n: prompt[n.replace("past_key_values", "present")]
            for n in self.past})
        return {"prefill": prefill,
                "decode": session.run(["logits"], step)[0]}

    def __call__(self, path):
        """(prefill SQNR, prefill top-1 %, decode SQNR, decode top-1 %)."""
        logits = self.logits(path)
        return tuple(f(self.reference[k], logits[k])
                     for k in ("prefill", "decode")
                     for f in (run.sqnr_db, lm.top1_agreement))

    def decode_check(self, path):
        """The decode step's FP32 logits against the prompt and the new
        token run as one prefill from an empty cache, at the last position:
        the largest difference, relative to the logits' largest magnitude."""
        whole = hf_decoders.step_feeds(
            path, np.concatenate([self.prompt["input_ids"],
                                  self.step["input_ids"]], axis=1),
            self.step["attention_mask"], None)
        session = bench_ort.session(path, optimize=False, threads=1)
        last = session.run(["logits"], whole)[0][:, -1:]
        reference = self.reference["decode"]
        return float(np.abs(last - reference).max() /
                     np.abs(reference).max())


# --- the run ---------------------------------------------------------------

HEADER = ("| architecture | section | tool | method | quantized layers | "
          "prefill SQNR dB | "
          "prefill top-1 % | decode SQNR dB | decode top-1 % | quantize s | "
          "of which the call s | peak RSS MiB | checker | note |")


def architecture(name, build, work, only, timeout, emit):
    """Exports one architecture into work/<name>, makes its data, and runs
    and scores every selected method, emitting a row each."""
    folder = work / name
    model = export(name, folder)
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    calib = folder / "calibration.npz"
    np.savez(calib, **hf_decoders.calibration(model, vocab=VOCAB,
                                              **CALIBRATION))
    score = Scorer(model)
    difference = score.decode_check(model)
    print(f"# {name}: {model.stat().st_size / 2**20:.1f} MiB; FP32 decode "
          f"step against the same tokens in one prefill: {difference:.1e} of "
          "the logits' largest magnitude", flush=True)
    emit(name, "FP32", "Optimum export",
         f"prefill {PREFILL['batch']} x {PREFILL['sequence']}; decode "
         f"{DECODE['batch']} x 1 after {DECODE['prompt']}",
         quantized_layers(model), "", "", "", "",
         "", "", "", checker(model), "")
    for index, (section, tool, method, how) in enumerate(methods(calib)):
        if only and not any(s in f"{section} {tool} {method}" for s in only):
            continue
        out = folder / f"{index:02d}.onnx"
        for stale in (out, Path(f"{out}.json")):
            stale.unlink(missing_ok=True)
        if isinstance(how, list):
            command = run.ours(build, model, out, *how)
        else:
            command = run.peer(how[0], model, calib, out, *how[1:])
        status, seconds, rss, message = run.measured(command, timeout)
        details = (json.loads(Path(f"{out}.json").read_text())
                   if Path(f"{out}.json").exists() else {})
        call = f"{details['seconds']:.1f}" if "seconds" in details else ""
        note = details.get("note", "")
        head = (name, section, tool, method)
        tail = (f"{seconds:.1f}", call, f"{rss:.0f}")
        if status != 0 or not out.exists():
            emit(*head, "", "", "", "", "", *tail, "", f"failed: {message}")
            continue
        head += (quantized_layers(out),)
        accepted = checker(out)
        try:
            figures = score(out)
        except Exception as error:  # ONNX Runtime refuses the model
            emit(*head, "", "", "", "", *tail, accepted,
                 "ONNX Runtime cannot run it: "
                 f"{str(error).splitlines()[0][:300]}")
            continue
        sqnr_p, top1_p, sqnr_d, top1_d = figures
        emit(*head, f"{sqnr_p:.1f}", f"{top1_p:.2f}", f"{sqnr_d:.1f}",
             f"{top1_d:.2f}", *tail, accepted, note)
    if hashlib.sha256(model.read_bytes()).hexdigest() != digest:
        raise SystemExit(f"{model} changed during the run: a tool wrote it")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--export":
        name, folder = sys.argv[2:]
        return print(hf_decoders.export(name, folder, size=SIZE,
                                        validate=False))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=str(here.parent.parent / "build"))
    parser.add_argument("--work", help="folder for the models (default: a "
                        "new temporary one)")
    parser.add_argument("--markdown", help="also write the table there")
    parser.add_argument("--only", help="only the rows whose 'section tool "
                        "method' contains one of these comma-separated "
                        "substrings")
    parser.add_argument("--architectures",
                        default=",".join(hf_decoders.ARCHITECTURES),
                        help="comma-separated, of "
                        f"{','.join(hf_decoders.ARCHITECTURES)}")
    parser.add_argument("--timeout", type=float, default=900,
                        help="seconds each quantizer may take")
    args = parser.parse_args()
    names = args.architectures.split(",")
    unknown = set(names) - set(hf_decoders.ARCHITECTURES)
    if unknown:
        parser.error(f"unknown architectures {sorted(unknown)}")
    build = Path(args.build).resolve()
    work = Path(args.work or tempfile.mkdtemp(prefix="qdq-hf-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    only = args.only.split(",") if args.only else None

    import onnx
    import onnxruntime
    import optimum.version
    import transformers
    print(f"# {run.machine()}; onnxruntime {onnxruntime.__version__}, onnx "
          f"{onnx.__version__}, transformers {transformers.__version__}, "
          f"optimum {optimum.version.__version__}; models in {work}",
          flush=True)
    table = MarkdownTable(HEADER)
    try:
        for name in names:
            architecture(name, build, work, only, args.timeout, table.add)
    finally:
        table.write(args.markdown)


if __name__ == "__main__":
    main()
