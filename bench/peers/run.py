#!/usr/bin/env python3
"""quant-qdq against its peers, side by side: the same ONNX files, the same
calibration arrays, the same evaluation arrays, the same runtime (ONNX
Runtime, CPU).

Tools, each run as its own process (wall time and peak RSS are the
quantization's alone):
- quant-qdq: qdq-opt model.onnx --insert-qdq=<case> --onnx-weights=int8
             --calibrate="data=calib.npy method=<m>" -o out.onnx
             (TensorRT's placement, the default target)
- quant-qdq ORT: the same with --qdq-target=onnxruntime (placement and
             formats for ONNX Runtime's integer kernels)
- ORT-Q:     onnxruntime.quantization.quantize_static (quantize_with_peer.py)
- ModelOpt:  modelopt.onnx.quantization.quantize       (quantize_with_peer.py)

Per model, tool and method: Q and DQ node counts, output SQNR against the
FP32 model (both run by ORT with its default optimizations, i.e. fused integer
kernels for QDQ, as deployed), the same SQNR with Q/DQ computed as written
(ORT's graph rewrites off: the placement's and the scales' error alone; on
x86 without VNNI, ORT's u8s8 kernels saturate 16-bit pair sums, an error
of the machine that the first column adds), top-1 where the data are real (digits), wall
time and peak RSS of the quantization, and ORT's batch-1 latency of the
result next to the FP32 model's, measured in turn in this process with
the same session settings for every tool (CPU provider, all graph
optimizations, ORT's default threads). Two columns say why a latency is
what it is: the storage types the file asks ORT for (activations/weights:
u8/s8 is ORT's fast x86 pairing; s8/s8 ORT converts to u8 on x86), and the
integer nodes ORT's optimizer formed from the Q/DQ groups (QLinearConv,
QLinearAdd, QGemm, MatMulIntegerToFloat, ...; the rest runs in float). A
tool that fails gets a row with its error.

usage: bench/peers/run.py [--build build] [--models a,b]
                          [--tools ours,ours-ort,ort,modelopt]
                          [--markdown table.md] [--timeout S] [--work DIR]
                          [--methods tool:method,...] [--calibration-samples N]
       bench/peers/run.py --latency-only DIR [--markdown table.md]

--latency-only measures again, on a quiet machine, the ORT latency of every
model a run left in DIR (its --work folder, printed at its start): per
model, the FP32 file and each tool's in turn, best of three interleaved
rounds, and rewrites the latency columns of its --markdown table (the
ratio "vs FP32" above 1 is faster than float).
"""
import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
from common import models as bench_models  # noqa: E402
from common import ort as bench_ort  # noqa: E402
from common.processes import measured  # noqa: E402

METHODS = {
    "ours": ["max", "percentile", "entropy", "mse"],
    "ours-ort": ["max", "percentile", "entropy", "mse"],
    "ort": ["minmax", "percentile", "entropy"],
    "modelopt": ["max", "entropy"],
}
TOOL_NAMES = {"ours": "quant-qdq", "ours-ort": "quant-qdq ORT", "ort": "ORT-Q",
              "modelopt": "ModelOpt"}
COLUMNS = ["model", "tool", "method", "Q", "DQ", "SQNR dB", "SQNR exact dB",
           "top-1 %", "quantize s", "peak RSS MiB", "act/weight",
           "ORT integer nodes", "ORT ms QDQ", "ORT ms FP32", "vs FP32", "note"]
ALL_MODELS = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small",
              "efficientnet_b0", "digits_cnn", "vit_b_16", "swin_t",
              "convnext_tiny", "bert_like"]


def build_model(name, work, samples=None):
    """The model and its data; `samples` calibration samples where given,
    else each model's default (16, 256 for the digits)."""
    calib = {} if samples is None else {"calib": samples}
    if name in bench_models.TORCHVISION_CNNS:
        return bench_models.torchvision_cnn(name, work, **calib)
    if name in bench_models.TORCHVISION_TRANSFORMERS:
        return bench_models.torchvision_transformer(name, work, **calib)
    if name == "vit_b_16":
        return bench_models.vit_b_16(work, **calib)
    if name == "bert_like":
        return bench_models.bert_like(work, **calib)
    if name == "digits_cnn":
        return bench_models.digits_cnn(work, **calib)
    raise SystemExit(f"unknown model {name}")


def quantize_command(tool, method, model, calib, out, build):
    if tool in ("ours", "ours-ort"):
        case = f"--insert-qdq={model.case}" if model.case else "--insert-qdq"
        target = ["--qdq-target=onnxruntime"] if tool == "ours-ort" else []
        return [str(build / "bin" / "qdq-opt"), str(model.onnx), case,
                *target, "--onnx-weights=int8",
                f"--calibrate=data={calib} method={method}", "-o", str(out)]
    return [sys.executable, str(here / "quantize_with_peer.py"), tool, method,
            str(model.onnx), str(calib), str(out)]


def count_qdq(path):
    nodes = onnx.load(str(path)).graph.node
    q = sum(n.op_type == "QuantizeLinear" for n in nodes)
    dq = sum(n.op_type == "DequantizeLinear" for n in nodes)
    return q, dq


def latency_input(path):
    """A batch-1 input for `path`'s first input: random floats, or token ids
    for an integer input."""
    session = bench_ort.session(path)
    info = session.get_inputs()[0]
    shape = [d if isinstance(d, int) else 1 for d in info.shape]
    rng = np.random.RandomState(0)
    if "int64" in info.type:
        return rng.randint(0, 1000, shape).astype(np.int64)
    return rng.rand(*shape).astype(np.float32)


def interleaved_latencies(paths, rounds=3, threads=0):
    """{key: ms}: the best over `rounds` interleaved rounds of each file's
    median batch-1 latency (bench_ort.run_ms), every file of a model
    measured in turn in each round, so that a slower or busier moment of
    the machine falls on all of them alike."""
    sessions = {}
    for key, path in paths.items():
        session = bench_ort.session(path, threads=threads)
        sessions[key] = (session, {session.get_inputs()[0].name:
                                   latency_input(path)})
    best = {key: float("inf") for key in paths}
    for _ in range(rounds):
        for key, (session, feeds) in sessions.items():
            best[key] = min(best[key], bench_ort.run_ms(session, feeds))
    return best


def remeasure_latencies(work, markdown):
    """Rewrites the latency columns of `markdown` from models in `work`:
    per model, the FP32 file and every quantized one measured in
    interleaved rounds (interleaved_latencies)."""
    lines = Path(markdown).read_text().splitlines()
    rows = []
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append(cells if len(cells) == len(COLUMNS)
                    and cells[0] not in ("model", "---") else line)
    keys = {v: k for k, v in TOOL_NAMES.items()}
    files = {}  # model -> {row index or "fp32": path}
    for index, cells in enumerate(rows):
        if isinstance(cells, str):
            continue
        name, tool, method = cells[0], cells[1], cells[2]
        paths = files.setdefault(name, {"fp32": Path(work) / f"{name}.onnx"})
        quantized = Path(work) / f"{name}.{keys.get(tool)}.{method}.onnx"
        if tool in keys and cells[COLUMNS.index("ORT ms QDQ")] and quantized.exists():
            paths[index] = quantized
    out = []
    measured = {name: interleaved_latencies(paths)
                for name, paths in files.items()}
    for index, cells in enumerate(rows):
        if isinstance(cells, str):
            out.append(cells)
            continue
        times = measured[cells[0]]
        cells[COLUMNS.index("ORT ms FP32")] = f"{times['fp32']:.2f}"
        if index in times:
            cells[COLUMNS.index("ORT ms QDQ")] = f"{times[index]:.2f}"
            cells[COLUMNS.index("vs FP32")] = f"{times['fp32'] / times[index]:.2f}x"
        out.append("| " + " | ".join(cells) + " |")
        print(out[-1], flush=True)
    Path(markdown).write_text("\n".join(out) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=str(here.parent.parent / "build"))
    parser.add_argument("--models", default=",".join(ALL_MODELS))
    parser.add_argument("--tools", default="ours,ours-ort,ort,modelopt")
    parser.add_argument("--methods", help="only these, as tool:method,... "
                        "(e.g. ours:max,ort:minmax); default: every method of "
                        "every tool")
    parser.add_argument("--markdown", help="also write the table there")
    parser.add_argument("--timeout", type=float, default=3600,
                        help="seconds one quantization may take")
    parser.add_argument("--work", help="folder for the models (default: a new "
                        "temporary one)")
    parser.add_argument("--calibration-samples", type=int, metavar="N",
                        help="calibration samples per model (default: 16, "
                        "256 for the digits; users calibrate with 500-1000)")
    parser.add_argument("--latency-only", metavar="DIR")
    args = parser.parse_args()
    if args.latency_only:
        if not args.markdown:
            raise SystemExit("--latency-only needs --markdown")
        return remeasure_latencies(args.latency_only, args.markdown)
    build = Path(args.build)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="qdq-peers-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"# models in {work}", flush=True)

    header = "| " + " | ".join(COLUMNS) + " |"
    rows = [header, "|" + "---|" * len(COLUMNS)]

    def emit(row):
        line = "| " + " | ".join(str(c) for c in row) + " |"
        rows.append(line)
        print(line, flush=True)

    import onnxruntime
    print(f"# {platform.node()} {platform.machine()}, {os.cpu_count()} cores; "
          f"onnxruntime {onnxruntime.__version__}, onnx {onnx.__version__}", flush=True)
    print(header, flush=True)
    for name in args.models.split(","):
        model = build_model(name, work, args.calibration_samples)
        calib = work / f"{name}.calib.npy"
        np.save(calib, model.calibration)
        reference = bench_ort.outputs(model.onnx, model.evaluation)
        fp32_ms = bench_ort.latency_ms(model.onnx, model.evaluation[0])
        fp32_top1 = (f"{bench_ort.top1_percent(reference, model.labels):.2f}"
                     if model.labels is not None else "")
        emit([name, "FP32", "", 0, 0, "", "", fp32_top1, "", "", "f32", "", "",
              f"{fp32_ms:.2f}", "", "; ".join(model.notes)])
        chosen = args.methods.split(",") if args.methods else None
        for tool in args.tools.split(","):
            for method in METHODS[tool]:
                if chosen and f"{tool}:{method}" not in chosen:
                    continue
                out = work / f"{name}.{tool}.{method}.onnx"
                status, seconds, rss, message = measured(
                    quantize_command(tool, method, model, calib, out, build),
                    args.timeout)
                row = [name, TOOL_NAMES[tool], method]
                if status != 0 or not out.exists():
                    emit(row + ["", "", "", "", "", f"{seconds:.1f}", ("" if rss != rss else f"{rss:.0f}"), "", "",
                                "", "", "", f"failed: {message}"])
                    continue
                q, dq = count_qdq(out)
                formats = bench_ort.storage_formats(out)
                try:
                    fused = bench_ort.format_counts(bench_ort.integer_nodes(out))
                    got = bench_ort.outputs(out, model.evaluation)
                    latency = f"{bench_ort.latency_ms(out, model.evaluation[0]):.2f}"
                    sqnr = f"{bench_ort.sqnr_db(reference, got):.1f}"
                    exact = bench_ort.outputs(out, model.evaluation, optimize=False)
                    sqnr_exact = f"{bench_ort.sqnr_db(reference, exact):.1f}"
                    accuracy = (f"{bench_ort.top1_percent(got, model.labels):.2f}"
                                if model.labels is not None else "")
                    note = ""
                except Exception as error:  # ORT refuses the model
                    sqnr = sqnr_exact = accuracy = latency = fused = ""
                    note = f"ORT cannot run it: {str(error).splitlines()[0][:200]}"
                speedup = (f"{fp32_ms / float(latency):.2f}x" if latency else "")
                emit(row + [q, dq, sqnr, sqnr_exact, accuracy, f"{seconds:.1f}", ("" if rss != rss else f"{rss:.0f}"),
                            formats, fused, latency, f"{fp32_ms:.2f}", speedup, note])
    if args.markdown:
        Path(args.markdown).write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
