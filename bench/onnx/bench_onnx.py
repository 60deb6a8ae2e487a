#!/usr/bin/env python3
"""ONNX import/export cost on a large model, against Python onnx.load/save.

    bench_onnx.py BUILD_DIR [WORK_DIR]

Builds torchvision vgg11_bn with random weights (about 531 MB of ONNX),
then runs, each in its own process so that its peak RSS is its own:

  python      onnx.load + onnx.save of the file (the Python round trip)
  import      qdq-opt model.onnx -o model.mlirbc --emit-bytecode
  export      qdq-opt model.mlirbc -o out.onnx (and the same with
              qdq-translate --export-onnx)
  round trip  qdq-opt model.onnx -o out.onnx (import + export, no pass)
  insert-qdq  qdq-opt model.onnx --insert-qdq=resnet-v1 -o qdq.onnx

and prints wall time, peak RSS and peak RSS / file size for each. Figures
only: nothing here passes or fails on timing.
"""

import os
import subprocess
import sys
import tempfile
import time


def measure(argv):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s\n%s" % (" ".join(argv), err))
    return elapsed, usage.ru_maxrss * 1024  # ru_maxrss is in KiB on Linux


PY_ROUND_TRIP = """
import sys, onnx
m = onnx.load(sys.argv[1])
onnx.save(m, sys.argv[2])
"""

EXPORT_VGG = """
import sys, torch, torchvision
torch.manual_seed(0)
m = torchvision.models.vgg11_bn().eval()
torch.onnx.export(m, torch.randn(1, 3, 224, 224), sys.argv[1],
                  opset_version=13, input_names=["input"],
                  output_names=["logits"])
"""


def main():
    build = os.path.abspath(sys.argv[1])
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp()
    os.makedirs(work, exist_ok=True)
    model = os.path.join(work, "vgg11_bn.onnx")
    if not os.path.exists(model):
        subprocess.run([sys.executable, "-c", EXPORT_VGG, model], check=True,
                       stderr=subprocess.DEVNULL)
    size = os.path.getsize(model)
    opt = os.path.join(build, "bin", "qdq-opt")
    translate = os.path.join(build, "bin", "qdq-translate")
    bc = os.path.join(work, "vgg11_bn.mlirbc")
    runs = [
        ("python onnx.load + onnx.save",
         [sys.executable, "-c", PY_ROUND_TRIP, model,
          os.path.join(work, "py.onnx")]),
        ("import (.onnx -> .mlirbc)",
         [opt, model, "-o", bc, "--emit-bytecode"]),
        ("export (qdq-opt .mlirbc -> .onnx)",
         [opt, bc, "-o", os.path.join(work, "export.onnx")]),
        ("export (qdq-translate --export-onnx)",
         [translate, "--export-onnx", bc, "-o",
          os.path.join(work, "export2.onnx")]),
        ("round trip (qdq-opt .onnx -> .onnx)",
         [opt, model, "-o", os.path.join(work, "rt.onnx")]),
        ("insert-qdq=resnet-v1 (.onnx -> .onnx)",
         [opt, model, "--insert-qdq=resnet-v1", "-o",
          os.path.join(work, "qdq.onnx")]),
    ]
    print("model: torchvision vgg11_bn, random weights, %.1f MB" % (size / 1e6))
    print("%-40s %9s %13s %9s" % ("step", "time (s)", "peak RSS (MB)",
                                  "RSS/file"))
    for name, argv in runs:
        elapsed, rss = measure(argv)
        print("%-40s %9.2f %13.0f %9.2f" % (name, elapsed, rss / 1e6,
                                            rss / size))


if __name__ == "__main__":
    main()
