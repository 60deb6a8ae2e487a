#!/usr/bin/env python3
"""A stand-in manifest for run_bench.py, until qdq-translate --export-gpu-kernels
exists: the same functions as gen_mlir.py, each a naive kernel written here in
LLVM IR (one element per thread, 256 threads per block, division, roundeven,
clamp, NaN to the zero point), compiled by llc's NVPTX backend to PTX and, for
--format bin, by ptxas to a cubin. Same schema and kernel ABI as the real
manifest (input, output, scale, zero_point pointers).

    standin_kernels.py [-o OUT.json] [--chip sm_90] [--format isa|bin]
                       [--llc PATH] [--ptxas PATH] [--tiny]

It lets the GPU session check run_bench.py itself (launch, timing, the
bitwise check) before the project's kernels exist, and gives a "naive
kernel" line to compare the project's kernels with. --tiny writes two 1 KiB
kernels (the lit test's fixture, test/bench/Inputs).
"""

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench  # noqa: E402

BLOCK = 256
LLVM_TYPE = {"float32": "float", "bfloat16": "bfloat", "float16": "half"}

KERNEL = """
define ptx_kernel void @{name}(ptr noalias readonly %x, ptr noalias writeonly %y,
                               ptr noalias readonly %s, ptr noalias readonly %z) {{
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %b = zext i32 %bid to i64
  %d = zext i32 %bdim to i64
  %t = zext i32 %tid to i64
  %bd = mul nuw i64 %b, %d
  %i = add nuw i64 %bd, %t
  %in = icmp ult i64 %i, {numel}
  br i1 %in, label %body, label %done
body:
  %xg = addrspacecast ptr %x to ptr addrspace(1)
  %yg = addrspacecast ptr %y to ptr addrspace(1)
  %sg = addrspacecast ptr %s to ptr addrspace(1)
  %zg = addrspacecast ptr %z to ptr addrspace(1)
{channel}
  %sp = getelementptr inbounds float, ptr addrspace(1) %sg, i64 %c
  %sv = load float, ptr addrspace(1) %sp
  %zp = getelementptr inbounds float, ptr addrspace(1) %zg, i64 %c
  %zv = load float, ptr addrspace(1) %zp
  %xp = getelementptr inbounds {ty}, ptr addrspace(1) %xg, i64 %i
  %xv = load {ty}, ptr addrspace(1) %xp
{widen}
  %q0 = fdiv float %xf, %sv
  %q1 = call float @llvm.roundeven.f32(float %q0)
  %q2 = fadd float %q1, %zv
  %q3 = call float @llvm.maxnum.f32(float %q2, float {qmin})
  %q4 = call float @llvm.minnum.f32(float %q3, float {qmax})
  %nan = fcmp uno float %xf, 0.0
  %q = select i1 %nan, float %zv, float %q4
  %o0 = fsub float %q, %zv
  %o = fmul float %o0, %sv
{narrow}
  %yp = getelementptr inbounds {ty}, ptr addrspace(1) %yg, i64 %i
  store {ty} %ot, ptr addrspace(1) %yp
  br label %done
done:
  ret void
}}
"""

DECLS = """target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare float @llvm.roundeven.f32(float)
declare float @llvm.maxnum.f32(float, float)
declare float @llvm.minnum.f32(float, float)
"""


def kernel_ir(f, name):
    ty = LLVM_TYPE[f["dtype"]]
    numel = 1
    for d in f["shape"]:
        numel *= d
    if f["axis"] is None:
        channel = "  %c = add i64 0, 0"
    else:
        inner = 1
        for d in f["shape"][f["axis"] + 1:]:
            inner *= d
        channel = "  %%cq = udiv i64 %%i, %d\n  %%c = urem i64 %%cq, %d" % (inner, f["shape"][f["axis"]])
    if ty == "float":
        widen, narrow = "  %xf = fadd float %xv, -0.0", "  %ot = fadd float %o, -0.0"
    else:
        widen = "  %%xf = fpext %s %%xv to float" % ty
        narrow = "  %%ot = fptrunc float %%o to %s" % ty
    q = run_bench.QUANTIZER
    return KERNEL.format(name=name, numel=numel, channel=channel, ty=ty, widen=widen,
                         narrow=narrow, qmin="%.1f" % q["qmin"], qmax="%.1f" % q["qmax"])


def tiny_set():
    return [
        {"function": "fq_f32_pt_1KiB", "dtype": "float32", "shape": [1, 4, 8, 8],
         "axis": None, "scales": run_bench.default_scales(4, False)},
        {"function": "fq_bf16_pc_1KiB", "dtype": "bfloat16", "shape": [2, 4, 8, 8],
         "axis": 1, "scales": run_bench.default_scales(4, True)},
    ]


def find_tool(name, given):
    """LLVM 22's llc first (an older llc on PATH may lack opaque pointers or
    sm_90), then PATH, then the CUDA toolkit."""
    if given:
        return given
    cands = ["/usr/lib/llvm-22/bin/" + name, shutil.which(name), "/usr/local/cuda/bin/" + name]
    for cand in cands:
        if cand and os.path.exists(cand):
            return cand
    sys.exit("standin_kernels.py: %s not found; pass --%s PATH" % (name, name))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-o", "--out", default="standin-kernels.json")
    p.add_argument("--chip", default="sm_90")
    p.add_argument("--format", choices=("isa", "bin"), default="isa")
    p.add_argument("--ptx-version", default="+ptx80", help="llc -mattr (sm_90 needs PTX 7.8+)")
    p.add_argument("--llc")
    p.add_argument("--ptxas")
    p.add_argument("--tiny", action="store_true", help="two 1 KiB kernels (lit fixture)")
    args = p.parse_args()
    funcs = tiny_set() if args.tiny else run_bench.bench_set()
    ir = [DECLS]
    for f in funcs:
        ir.append(kernel_ir(f, f["function"] + "_kernel"))
    llc = find_tool("llc", args.llc)
    with tempfile.TemporaryDirectory() as tmp:
        ll, ptx, cubin = (os.path.join(tmp, "standin" + e) for e in (".ll", ".ptx", ".cubin"))
        with open(ll, "w") as fh:
            fh.write("".join(ir))
        subprocess.run([llc, "-O3", "-march=nvptx64", "-mcpu=" + args.chip,
                        "-mattr=" + args.ptx_version, ll, "-o", ptx], check=True)
        if args.format == "bin":
            ptxas = find_tool("ptxas", args.ptxas)
            subprocess.run([ptxas, "-O3", "-arch=" + args.chip, ptx, "-o", cubin], check=True)
            data = open(cubin, "rb").read()
        else:
            data = open(ptx, "rb").read()
    kernels = []
    for f in funcs:
        numel = 1
        for d in f["shape"]:
            numel *= d
        c = len(f["scales"])
        q = dict(run_bench.QUANTIZER, axis=f["axis"])
        kernels.append({
            "function": f["function"], "op": "fake_quant", "module": "standin",
            "kernel": f["function"] + "_kernel",
            "grid": [-(-numel // BLOCK), 1, 1], "block": [BLOCK, 1, 1], "shared_bytes": 0,
            "args": [
                {"role": "input", "dtype": f["dtype"], "shape": f["shape"]},
                {"role": "output", "dtype": f["dtype"], "shape": f["shape"]},
                {"role": "scale", "dtype": "float32", "shape": [c], "values": f["scales"]},
                {"role": "zero_point", "dtype": "float32", "shape": [c], "values": [0.0] * c},
            ],
            "quantizer": {k: q[k] for k in ("bits", "signed", "narrow_range", "axis", "qmin", "qmax")},
        })
    manifest = {
        "chip": args.chip, "format": args.format,
        "objects": [{"module": "standin", "data": base64.b64encode(data).decode()}],
        "kernels": kernels,
        "generator": "bench/gpu/standin_kernels.py (naive stand-in kernels, llc%s)" % (
            " + ptxas" if args.format == "bin" else ""),
    }
    with open(args.out, "w") as fh:
        json.dump(manifest, fh, indent=1)
        fh.write("\n")
    print("wrote %s: %d stand-in kernels, %s, %s" % (args.out, len(kernels), args.format, args.chip))


if __name__ == "__main__":
    main()
