#!/usr/bin/env python3
"""Writes models whose tensors live in external data files, into DIR:

    make_external_data.py DIR

- conv.onnx + conv.weights: a small CNN saved by onnx with every tensor
  (node attributes included) in one data file; inline.onnx: the same model
  with its tensors inside; input.npy: an input for both.
- One model per way a location can be wrong or hostile (absolute.onnx,
  parent.onnx, link.onnx, ...), each reading one weight `w`.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(3)


def cnn():
    w = rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.2
    b = rng.standard_normal(8).astype(np.float32) * 0.1
    w2 = rng.standard_normal((32, 8, 3, 3)).astype(np.float32) * 0.1
    fc = rng.standard_normal((32, 10)).astype(np.float32) * 0.3
    shift = rng.standard_normal((1, 32, 8, 8)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c1"], name="conv1",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2",
                         pads=[1, 1, 1, 1]),
        # A large constant held by a node attribute, not an initializer.
        helper.make_node("Constant", [], ["shift"], name="shift",
                         value=numpy_helper.from_array(shift, "shift")),
        helper.make_node("Add", ["c2", "shift"], ["a"], name="add"),
        helper.make_node("Relu", ["a"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["p"], name="pool"),
        helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
        helper.make_node("MatMul", ["f", "fc"], ["y"], name="fc"),
    ]
    graph = helper.make_graph(
        nodes, "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        [numpy_helper.from_array(a, n)
         for a, n in [(w, "w"), (b, "b"), (w2, "w2"), (fc, "fc")]])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def one_weight(entries, data_location=TensorProto.EXTERNAL, dims=(4,)):
    """x + w, with w's data described by `entries`."""
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=list(dims))
    w.data_location = data_location
    for key, value in entries:
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(dims))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(dims))],
        [w])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def save(model, path):
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    model = cnn()
    save(model, os.path.join(out, "inline.onnx"))
    onnx.save_model(model, os.path.join(out, "conv.onnx"),
                    save_as_external_data=True, all_tensors_to_one_file=True,
                    location="conv.weights", size_threshold=0,
                    convert_attribute=True)
    np.save(os.path.join(out, "input.npy"),
            rng.standard_normal((1, 3, 8, 8)).astype(np.float32))

    # 16 bytes: the four floats `w` needs, and a file outside the folder.
    with open(os.path.join(out, "w.bin"), "wb") as f:
        f.write(np.arange(4, dtype=np.float32).tobytes())
    outside = os.path.join(os.path.dirname(os.path.abspath(out)),
                           "outside.bin")
    with open(outside, "wb") as f:
        f.write(np.arange(4, dtype=np.float32).tobytes())
    link = os.path.join(out, "link.bin")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(outside, link)

    cases = {
        "good": [("location", "w.bin"), ("offset", "0"), ("length", "16")],
        "absolute": [("location", outside)],
        "parent": [("location", "sub/../../outside.bin")],
        "link": [("location", "link.bin")],
        "missing": [("location", "nothing.bin")],
        "length": [("location", "w.bin"), ("length", "12")],
        "past_end": [("location", "w.bin"), ("offset", "8")],
        "bad_offset": [("location", "w.bin"), ("offset", "-8")],
        "unknown_key": [("location", "w.bin"), ("compression", "zstd")],
        "no_location": [("offset", "0")],
        "folder": [("location", ".")],
    }
    for name, entries in cases.items():
        save(one_weight(entries), os.path.join(out, name + ".onnx"))
    # A huge declared shape: refused before anything is allocated.
    save(one_weight([("location", "w.bin")], dims=(1 << 30, 1 << 30)),
         os.path.join(out, "huge.onnx"))


if __name__ == "__main__":
    main()
