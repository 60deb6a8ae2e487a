#!/usr/bin/env python3
"""Counts what the bn and maxpool cases promise in a QDQ ONNX model.

    check_case_layers.py MODEL.onnx

Prints, for FileCheck:

  bn-not-after-conv: N input-quantized: M
      BatchNormalization nodes whose input is not a Conv output (after a
      Concat, an Add...), and how many of them read a DequantizeLinear.
  maxpools: N input-quantized: M
      MaxPool nodes, and how many read a DequantizeLinear.
"""

import sys

import onnx


def main():
    g = onnx.load(sys.argv[1]).graph
    producer = {o: n for n in g.node for o in n.output}

    def op_of(tensor):
        node = producer.get(tensor)
        return node.op_type if node else None

    bns = [n for n in g.node if n.op_type == "BatchNormalization"]
    free_bns = []
    for bn in bns:
        source = bn.input[0]
        # Look through the Q/DQ pair to the real producer.
        if op_of(source) == "DequantizeLinear":
            source = producer[producer[source].input[0]].input[0]
        if op_of(source) != "Conv":
            free_bns.append(bn)
    quantized = sum(op_of(bn.input[0]) == "DequantizeLinear" for bn in free_bns)
    print(f"bn-not-after-conv: {len(free_bns)} input-quantized: {quantized}")
    pools = [n for n in g.node if n.op_type == "MaxPool"]
    quantized = sum(op_of(p.input[0]) == "DequantizeLinear" for p in pools)
    print(f"maxpools: {len(pools)} input-quantized: {quantized}")


if __name__ == "__main__":
    main()
