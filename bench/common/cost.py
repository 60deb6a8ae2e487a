"""The cost of a QDQ ONNX model as quantization sees it, read from the file
alone, so that every tool's output is measured the same way.

bits_per_mac: over every Conv, Gemm and MatMul, the storage bits of each of
its two multiplied operands (the type a DequantizeLinear reads, through
ops whose outputs are values of their input: Reshape, Transpose, MaxPool
and the like; 32 when no DequantizeLinear feeds it),
weighted by the node's multiply-accumulates and averaged:

    sum(MACs * (bits_a + bits_b)) / sum(2 * MACs)
"""
import numpy as np
import onnx
from onnx import TensorProto, shape_inference

BITS = {TensorProto.INT8: 8, TensorProto.UINT8: 8, TensorProto.INT16: 16,
        TensorProto.UINT16: 16, TensorProto.INT4: 4, TensorProto.UINT4: 4,
        TensorProto.FLOAT8E4M3FN: 8, TensorProto.FLOAT8E5M2: 8,
        TensorProto.INT32: 32}
PASS_THROUGH = {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten",
                "Identity", "MaxPool"}


def _static(model, feeds):
    """`model` with its inputs' shapes set to those of `feeds` and every
    shape inferred."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    for value in model.graph.input:
        if value.name not in feeds:
            continue
        dims = value.type.tensor_type.shape.dim
        for dim, size in zip(dims, np.shape(feeds[value.name])):
            dim.Clear()
            dim.dim_value = int(size)
    return shape_inference.infer_shapes(model, data_prop=True)


def bits_per_mac(path, feeds):
    """The MAC-weighted storage bits of `path`'s multiplied operands on
    inputs shaped as `feeds` ({input name: array})."""
    model = _static(onnx.load(str(path)), feeds)
    graph = model.graph
    shapes, types = {}, {}
    for value in list(graph.value_info) + list(graph.input) + list(graph.output):
        tensor = value.type.tensor_type
        shapes[value.name] = [d.dim_value for d in tensor.shape.dim]
        types[value.name] = tensor.elem_type
    for init in graph.initializer:
        shapes[init.name] = list(init.dims)
        types[init.name] = init.data_type
    producer = {out: node for node in graph.node for out in node.output}

    def bits(name):
        node = producer.get(name)
        while node is not None and node.op_type in PASS_THROUGH:
            node = producer.get(node.input[0])
        if node is not None and node.op_type == "DequantizeLinear":
            return BITS.get(types.get(node.input[0]), 32)
        return 32

    total = weighted = 0
    for node in graph.node:
        if node.op_type not in ("Conv", "Gemm", "MatMul"):
            continue
        out = shapes.get(node.output[0])
        a, b = shapes.get(node.input[0]), shapes.get(node.input[1])
        if not out or not a or not b or 0 in out:
            continue
        if node.op_type == "Conv":
            reduction = int(np.prod(b[1:]))
        elif node.op_type == "Gemm":
            trans_a = any(x.name == "transA" and x.i for x in node.attribute)
            reduction = a[0] if trans_a else a[-1]
        else:
            reduction = a[-1]
        macs = int(np.prod(out)) * reduction
        total += 2 * macs
        weighted += macs * (bits(node.input[0]) + bits(node.input[1]))
    return weighted / total if total else float("nan")
