#!/usr/bin/env python3
"""Checks a QDQ ONNX model and reports where its Q/DQ pairs are.

    check_qdq.py MODEL.onnx

Runs the full ONNX checker and strict shape inference, then prints counts
that the insertion cases promise, for FileCheck:

  convs: N input-quantized: N weight-quantized: N
      every Conv/Gemm input comes from a DequantizeLinear (possibly through
      pass-through layers), and so does its weight, which is an initializer
      quantized per output channel (axis 0).
  adds: N residual-ok: M
      M of the N Adds keep exactly one input unquantized, that input is fed
      by a convolution (Conv, BN <- Conv, Relu <- BN <- Conv ...), and all
      their other inputs are quantized (the residual case).
  se-muls: N both-quantized: M
      Muls that are not a swish (x * Sigmoid(x)): M have both inputs
      quantized (the se-multiply case of efficientnet).
  qdq-pairs: N
"""

import collections
import sys

import onnx

PASS_THROUGH = {"MaxPool", "Reshape", "Flatten", "Transpose", "Pad",
                "Identity", "Dropout"}
CONV_CHAIN = {"BatchNormalization", "Relu", "Clip", "Dropout", "Identity"}


def main():
    m = onnx.load(sys.argv[1])
    onnx.checker.check_model(m, full_check=True)
    onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True)
    g = m.graph
    producer = {o: n for n in g.node for o in n.output}
    consumers = collections.Counter(i for n in g.node for i in n.input)
    inits = {t.name for t in g.initializer}

    def quantized(name):
        n = producer.get(name)
        while n is not None and n.op_type in PASS_THROUGH:
            n = producer.get(n.input[0])
        return n is not None and n.op_type == "DequantizeLinear"

    def conv_fed(name):
        n = producer.get(name)
        while n is not None and n.op_type in CONV_CHAIN:
            n = producer.get(n.input[0])
        return n is not None and n.op_type == "Conv"

    def weight_quantized(name):
        dq = producer.get(name)
        if dq is None or dq.op_type != "DequantizeLinear":
            return False
        q = producer.get(dq.input[0])
        if q is not None and q.op_type == "QuantizeLinear":
            source = q.input[0]
        else:
            source = dq.input[0]
        axis = [a.i for a in dq.attribute if a.name == "axis"]
        return source in inits and axis in ([0], [])

    convs = [n for n in g.node if n.op_type in ("Conv", "Gemm")]
    print("convs: %d input-quantized: %d weight-quantized: %d" % (
        len(convs), sum(quantized(n.input[0]) for n in convs),
        sum(weight_quantized(n.input[1]) for n in convs)))

    adds = [n for n in g.node if n.op_type == "Add"]
    ok = 0
    for n in adds:
        plain = [i for i in n.input if not quantized(i)]
        if len(plain) == 1 and conv_fed(plain[0]) and consumers[plain[0]] == 1:
            ok += 1
        else:
            print("add %s: unquantized inputs %s" % (n.name, plain))
    print("adds: %d residual-ok: %d" % (len(adds), ok))

    def is_swish(n):
        a, b = n.input
        return any(producer.get(y) is not None and
                   producer[y].op_type == "Sigmoid" and
                   producer[y].input[0] == x for x, y in ((a, b), (b, a)))

    muls = [n for n in g.node if n.op_type == "Mul" and not is_swish(n)]
    print("se-muls: %d both-quantized: %d" % (
        len(muls), sum(all(quantized(i) for i in n.input) for n in muls)))
    q = sum(n.op_type == "QuantizeLinear" for n in g.node)
    dq = sum(n.op_type == "DequantizeLinear" for n in g.node)
    print("qdq-pairs: %d" % min(q, dq))


if __name__ == "__main__":
    main()
