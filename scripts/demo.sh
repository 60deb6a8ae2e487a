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
echo "The skip branch of block1_add is quantized, its convolution branch is not:"
echo "TensorRT fuses the Add into block1_conv2's INT8 kernel."

bold "4. Calibrate on 64 random images and export QDQ ONNX for TensorRT"
/usr/bin/python3 -c "import numpy as np; np.save('$out/calib.npy', np.random.RandomState(0).rand(64, 3, 32, 32).astype(np.float32)); np.save('$out/x.npy', np.random.RandomState(1).rand(1, 3, 32, 32).astype(np.float32))"
"$build/bin/qdq-opt" "$model" --insert-qdq=resnet-v1 \
  --calibrate="data=$out/calib.npy save=$out/table.json" \
  -o "$out/resnet_v1_block.qdq.onnx"
echo "calibrated ranges ($out/table.json):"
/usr/bin/python3 -c "import json; [print(f'   {k:24} amax {v[\"amax\"]:.3f}') for k, v in json.load(open('$out/table.json'))['tensors'].items()]"

bold "5. Run the float and the INT8 network on the CPU (qdq-run, JIT)"
"$build/bin/qdq-run" "$model" --input "$out/x.npy" --output "$out/fp32.npy"
"$build/bin/qdq-run" "$out/resnet_v1_block.qdq.onnx" --input "$out/x.npy" --output "$out/int8.npy"
/usr/bin/python3 -c "import numpy as np; a, b = np.load('$out/fp32.npy'), np.load('$out/int8.npy'); print(f'   fp32 {a[0,:4]}\n   int8 {b[0,:4]}\n   SQNR {10*np.log10((a**2).sum()/((a-b)**2).sum()):.1f} dB')"
bold "Written in $out: the QDQ model (.mlir, .onnx for trtexec --onnx=... --int8), its graph (.dot), the table"
