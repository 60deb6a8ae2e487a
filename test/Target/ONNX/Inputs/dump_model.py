#!/usr/bin/env python3
"""Checks an ONNX model and prints it in a stable, FileCheck-friendly form.

    dump_model.py MODEL.onnx

Runs onnx.checker.check_model(full_check=True) (which includes strict shape
inference) first; a model that fails it makes this script fail. Then prints
the model fields, graph inputs and outputs, initializers (small ones with
their values) and nodes with their attributes, one per line.
"""

import sys

import numpy as np
import onnx
from onnx import numpy_helper


def fmt_type(t):
    tt = t.tensor_type
    dims = ["?" if not d.HasField("dim_value") else str(d.dim_value)
            for d in tt.shape.dim]
    params = [d.dim_param for d in tt.shape.dim if d.dim_param]
    text = "%s[%s]" % (onnx.TensorProto.DataType.Name(tt.elem_type),
                       ",".join(dims))
    return text + (" params=%s" % ",".join(params) if params else "")


def fmt_attr(a):
    v = onnx.helper.get_attribute_value(a)
    if isinstance(v, onnx.TensorProto):
        return "%s=tensor(%s)" % (a.name, numpy_helper.to_array(v).tolist())
    if isinstance(v, onnx.GraphProto):
        return "%s=graph(%s)" % (a.name, ",".join(n.op_type for n in v.node))
    if isinstance(v, bytes):
        v = v.decode()
    if isinstance(v, float):
        v = round(v, 6)
    if isinstance(v, list):
        v = [x.decode() if isinstance(x, bytes) else
             round(x, 6) if isinstance(x, float) else x for x in v]
    return "%s=%s" % (a.name, v)


def main():
    m = onnx.load(sys.argv[1])
    onnx.checker.check_model(m, full_check=True)
    print("ir_version:", m.ir_version)
    print("opsets:", sorted((o.domain, o.version) for o in m.opset_import))
    print("producer:", m.producer_name)
    if m.doc_string:
        print("doc_string:", m.doc_string)
    if m.domain:
        print("domain:", m.domain)
    if m.model_version:
        print("model_version:", m.model_version)
    for p in m.metadata_props:
        print("metadata: %s=%s" % (p.key, p.value))
    g = m.graph
    print("graph:", g.name)
    for i in g.input:
        print("input: %s %s" % (i.name, fmt_type(i.type)))
    for o in g.output:
        print("output: %s %s" % (o.name, fmt_type(o.type)))
    for t in g.initializer:
        a = numpy_helper.to_array(t)
        text = "initializer: %s %s %s" % (
            t.name, onnx.TensorProto.DataType.Name(t.data_type), list(a.shape))
        if a.size <= 8:
            values = [float("%.6g" % v) if isinstance(v, float) else v
                      for v in a.flatten().tolist()]
            text += " = %s" % (values[0] if a.shape == () else values)
        print(text)
    for n in g.node:
        attrs = " ".join(fmt_attr(a) for a in n.attribute)
        domain = "%s." % n.domain if n.domain else ""
        print("node: %s%s %s (%s) -> (%s) %s" % (
            domain, n.op_type, n.name, ", ".join(n.input),
            ", ".join(n.output), attrs))


if __name__ == "__main__":
    main()
