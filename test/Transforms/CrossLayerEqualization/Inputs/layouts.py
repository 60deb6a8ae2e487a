#!/usr/bin/env python3
"""Writes DIR/layouts.mlir, a chain of four pairs in the layouts and forms
that ONNX models do not have, with weights whose channels are far apart,
and an input DIR/x.npy:

    x [1, 5, 5, 3] -> conv "c1" (NHWC, HWIO 3x3, 3 -> 6) -> relu6
      -> conv "dw" (NHWC depthwise, 3x3x1x6) -> leaky_relu
      -> conv "pw" (NHWC 1x1, 6 -> 4)
      -> dense "fc1" (transposed weight, 8 x 4) -> clip(0, 3)
      -> dense "fc2" (8 x 2)

The channels of an NHWC convolution are its output's last axis, which a
dense layer reads: pw -> fc1 pairs. The bounds of relu6 and clip lie
along the last axis ([C], not [1, C, 1, 1]).

    layouts.py DIR
"""

import os
import sys

import numpy as np

rng = np.random.default_rng(5)
out = sys.argv[1]


def spread(n):
    return 10.0 ** rng.uniform(-1.5, 1.5, n)


c1 = rng.standard_normal((3, 3, 3, 6)) * spread(6) * 0.3
c1b = rng.standard_normal(6) * 0.1
dw = rng.standard_normal((3, 3, 1, 6)) * spread(6) * 0.5
pw = rng.standard_normal((1, 1, 6, 4)) * spread(4)
fc1 = rng.standard_normal((8, 4)) * spread(8)[:, None]
fc1b = rng.standard_normal(8) * 0.1
fc2 = rng.standard_normal((8, 2)) * 0.5
weights = {"c1": c1, "c1b": c1b, "dw": dw, "pw": pw, "fc1": fc1,
           "fc1b": fc1b, "fc2": fc2}
T = "tensor<1x5x5x{}xf32>"
body = "".join(
    f"  %{k} = arith.constant dense<{np.array2string(v.astype(np.float32), separator=', ', threshold=10**6, floatmode='unique').replace(chr(10), '')}> : tensor<{'x'.join(map(str, v.shape))}xf32>\n"
    for k, v in weights.items())
body += f"""  %a = quant_qdq.conv2d "c1" %x, %c1, %c1b {{layout = #quant_qdq<layout nhwc>, pads = array<i64: 1, 1, 1, 1>}} : ({T.format(3)}, tensor<3x3x3x6xf32>, tensor<6xf32>) -> {T.format(6)}
  %ar = quant_qdq.activation relu6 "c1_relu6" %a : {T.format(6)}
  %b = quant_qdq.conv2d "dw" %ar, %dw {{groups = 6 : i64, layout = #quant_qdq<layout nhwc>, pads = array<i64: 1, 1, 1, 1>}} : ({T.format(6)}, tensor<3x3x1x6xf32>) -> {T.format(6)}
  %br = quant_qdq.activation leaky_relu "dw_leaky" %b {{alpha = 0.1 : f32}} : {T.format(6)}
  %c = quant_qdq.conv2d "pw" %br, %pw {{layout = #quant_qdq<layout nhwc>}} : ({T.format(6)}, tensor<1x1x6x4xf32>) -> {T.format(4)}
  %d = quant_qdq.dense "fc1" %c, %fc1, %fc1b {{transpose_weight}} : ({T.format(4)}, tensor<8x4xf32>, tensor<8xf32>) -> {T.format(8)}
  %dr = quant_qdq.activation clip "fc1_clip" %d {{min = 0.0 : f32, max = 3.0 : f32}} : {T.format(8)}
  %y = quant_qdq.dense "fc2" %dr, %fc2 : ({T.format(8)}, tensor<8x2xf32>) -> {T.format(2)}
  return %y : {T.format(2)}
"""
with open(os.path.join(out, "layouts.mlir"), "w") as f:
    f.write(f"func.func @main(%x: {T.format(3)}) -> {T.format(2)} {{\n"
            + body + "}\n")
np.save(os.path.join(out, "x.npy"),
        rng.standard_normal((1, 5, 5, 3)).astype(np.float32))
