#!/usr/bin/env bash
# `make demo`: the deployment job on a network that means something. A small
# CNN is trained on scikit-learn's handwritten digits, Q/DQ nodes are placed
# where TensorRT wants them and calibrated, and the float and INT8 networks
# are compared on held-out digits, run by the project's own compiled code.
#
#   scripts/demo.sh [build-dir] [output-dir (default: build-dir/demo)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
bin=$build/bin
out=${2:-$build/demo}
mkdir -p "$out"
python=$root/.venv/bin/python3
[[ -x $python ]] || python=python3

bold() { printf '\n\033[1m%s\033[0m\n' "$*"; }

bold "1. Train a CNN on scikit-learn's 8x8 handwritten digits (PyTorch) and export it to ONNX"
"$python" "$root/scripts/demo_digits.py" "$out"

bold "2. qdq-opt --insert-qdq=resnet-v1 --calibrate: Q/DQ where TensorRT wants them, scales from 256 training images"
"$bin/qdq-opt" "$out/digits.onnx" --insert-qdq=resnet-v1 \
  --calibrate="data=$out/calib.npy save=$out/table.json" --qdq-report=- \
  -o "$out/digits.qdq.onnx"
echo "Convolutions, the dense layer and global pooling read INT8 inputs, and"
echo "weights are INT8 per output channel; each residual Add's skip input is"
echo "quantized, the other not, so that TensorRT fuses the Add into the INT8"
echo "convolution that produces it (the toolkit's ResNetV1QDQCase)."

bold "3. The placement, drawn: $out/digits.qdq.svg"
"$bin/qdq-translate" --qdq-to-dot "$out/digits.qdq.onnx" > "$out/digits.qdq.dot"
if command -v dot >/dev/null; then
  dot -Tsvg "$out/digits.qdq.dot" -o "$out/digits.qdq.svg"
  echo "   quantize in orange, dequantize in green, layers in blue (open it in a browser)"
else
  echo "   (graphviz's dot is not installed: the graph is in $out/digits.qdq.dot)"
fi

bold "4. Float and INT8 on the 540 held-out digits, both run by qdq-run (JIT-compiled for this CPU)"
"$bin/qdq-run" "$out/digits.onnx" --input "$out/test.npy" --output "$out/fp32.npy"
"$bin/qdq-run" "$out/digits.qdq.onnx" --input "$out/test.npy" --output "$out/int8.npy"
"$python" - "$out" <<'PY'
import sys
import numpy as np
import onnxruntime as ort
out = sys.argv[1]
labels = np.load(f"{out}/labels.npy")
def top1(logits):
    return 100.0 * (logits.argmax(1) == labels).mean()
fp32, int8 = np.load(f"{out}/fp32.npy"), np.load(f"{out}/int8.npy")
session = ort.InferenceSession(f"{out}/digits.qdq.onnx",
                               providers=["CPUExecutionProvider"])
checked = session.run(None, {"image": np.load(f"{out}/test.npy")})[0]
print(f"   FP32 top-1 {top1(fp32):.2f}%   INT8 top-1 {top1(int8):.2f}%   "
      f"({len(labels)} images)")
print(f"   ONNX Runtime on the same QDQ model: INT8 top-1 {top1(checked):.2f}%")
PY

bold "5. qdq-run --compare: what quantization did to the numbers, and where"
"$bin/qdq-run" "$out/digits.qdq.onnx" --input "$out/test.npy" \
  --compare="$out/digits.onnx" --compare-layers=5

bold "Written in $out: digits.qdq.onnx (trtexec --onnx=... --int8), its picture, the calibration table"
