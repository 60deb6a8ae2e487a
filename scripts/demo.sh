#!/usr/bin/env bash
# `make demo`: place Q/DQ nodes on the bundled ResNet-v1 network the way
# TensorRT wants them, and show what was decided and why.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
model=$root/examples/resnet_v1_block.mlir
out=$build/demo
mkdir -p "$out"

bold() { printf '\n\033[1m%s\033[0m\n' "$*"; }

bold "1. The network: $model (a ResNet-v1 stem and residual block)"
grep -E 'quant_qdq\.' "$model" | sed -E 's/ : (\(|tensor).*//; s/^ */   /'

bold "2. qdq-opt --insert-qdq=resnet-v1 --qdq-report=-   (per-layer decisions)"
"$build/bin/qdq-opt" "$model" --insert-qdq=resnet-v1 --qdq-report=- \
  -o "$out/resnet_v1_block.qdq.mlir"

bold "3. The quantized network, Q/DQ pairs marked >>"
grep -E 'quant_qdq\.' "$out/resnet_v1_block.qdq.mlir" |
  sed -E 's/ : (\(|tensor).*//; s/^ */   /; s/^( *)(%[0-9]+ = quant_qdq\.(quantize|dequantize))/>>\1\2/'

"$build/bin/qdq-translate" --qdq-to-dot "$out/resnet_v1_block.qdq.mlir" \
  > "$out/resnet_v1_block.qdq.dot"
bold "Written: $out/resnet_v1_block.qdq.mlir and .dot (dot -Tsvg to draw it)"
echo "The skip branch of block1_add is quantized, its convolution branch is not:"
echo "TensorRT fuses the Add into block1_conv2's INT8 kernel."
