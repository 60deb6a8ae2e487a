#!/usr/bin/env python3
"""Writes a synthetic ResNet-v1 style network of about N layers in the
quant_qdq dialect: a stem, then basic blocks (conv, bn, relu, conv, bn, add,
relu), every fourth block with a projection shortcut. Weights are splat
constants, so the file measures graph handling, not weight bytes.

usage: gen_residual_net.py LAYERS > net.mlir
"""
import sys


def main():
    target = int(sys.argv[1])
    c = 8
    t = f"tensor<1x{c}x8x8xf32>"
    w = f"tensor<{c}x{c}x3x3xf32>"
    w1 = f"tensor<{c}x{c}x1x1xf32>"
    p = f"tensor<{c}xf32>"
    out = []
    emit = out.append
    emit(f"func.func @net(%x: {t}) -> {t} {{")
    emit(f"  %w3 = arith.constant dense<0.01> : {w}")
    emit(f"  %w1 = arith.constant dense<0.01> : {w1}")
    emit(f"  %p = arith.constant dense<1.0> : {p}")
    layers = 0
    v = "%x"
    n = 0

    def layer(text):
        nonlocal n, layers
        n += 1
        layers += 1
        emit(f"  %v{n} = {text}")
        return f"%v{n}"

    conv = lambda name, a, k: layer(
        f'quant_qdq.conv2d "{name}" {a}, {"%w3" if k == 3 else "%w1"}'
        + (" {pads = array<i64: 1, 1, 1, 1>}" if k == 3 else "")
        + f" : ({t}, {w if k == 3 else w1}) -> {t}")
    bn = lambda name, a: layer(
        f'quant_qdq.batch_norm "{name}" {a}, %p, %p, %p, %p'
        f" : ({t}, {p}, {p}, {p}, {p}) -> {t}")
    relu = lambda name, a: layer(f'quant_qdq.activation relu "{name}" {a} : {t}')

    v = relu("stem_relu", bn("stem_bn", conv("stem_conv", v, 3)))
    block = 0
    while layers < target:
        block += 1
        b = f"b{block}"
        y = relu(f"{b}_relu1", bn(f"{b}_bn1", conv(f"{b}_conv1", v, 3)))
        y = bn(f"{b}_bn2", conv(f"{b}_conv2", y, 3))
        skip = v
        if block % 4 == 0:
            skip = bn(f"{b}_proj_bn", conv(f"{b}_proj", v, 1))
        s = layer(f'quant_qdq.add "{b}_add" {y}, {skip} : ({t}, {t}) -> {t}')
        v = relu(f"{b}_out", s)
    emit(f"  return {v} : {t}")
    emit("}")
    sys.stdout.write("\n".join(out) + "\n")
    sys.stderr.write(f"{layers} layers\n")


if __name__ == "__main__":
    main()
