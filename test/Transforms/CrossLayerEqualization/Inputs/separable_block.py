#!/usr/bin/env python3
"""Writes DIR/block.onnx, a MobileNet-v2 block whose expansion channels
span two orders of magnitude and whose depthwise filters make up for it
(what folding batch normalization leaves when channels' statistics differ),
with a classifier, 32 samples DIR/data.npy and a QuantizationSpec giving
every weighted layer one scale per tensor, DIR/per_tensor.json:

    x -> Conv 1x1 (8->16) -> Clip(0, 6) -> depthwise Conv 3x3 -> Clip(0, 4)
      -> Conv 1x1 (16->8) -> Relu -> GlobalAveragePool -> Flatten -> Gemm

    separable_block.py DIR
"""

import json
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(11)
out = sys.argv[1]


def normal(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# Expansion channel i is `spread_i` times as large, depthwise filter i as
# many times smaller: the block's output does not depend on the spread, the
# depthwise weight's channel ranges do (by 100x).
spread = (10.0 ** rng.uniform(-2, 0, 16)).astype(np.float32)
initializers = {
    "expand_w": normal(16, 8, 1, 1, scale=1.5) * spread[:, None, None, None],
    "expand_b": normal(16, scale=0.5) * spread,
    "dw_w": normal(16, 1, 3, 3, scale=0.3) / spread[:, None, None, None],
    "dw_b": normal(16, scale=0.1),
    "project_w": normal(8, 16, 1, 1, scale=0.3),
    "project_b": normal(8, scale=0.1),
    "fc_w": normal(10, 8, scale=0.5),
    "fc_b": normal(10, scale=0.1),
}
nodes = [
    helper.make_node("Conv", ["x", "expand_w", "expand_b"], ["e"],
                     name="expand"),
    helper.make_node("Clip", ["e", "zero", "six"], ["e6"], name="expand_relu6"),
    helper.make_node("Conv", ["e6", "dw_w", "dw_b"], ["d"], name="dw",
                     group=16, pads=[1, 1, 1, 1]),
    helper.make_node("Clip", ["d", "zero", "four"], ["d4"], name="dw_clip"),
    helper.make_node("Conv", ["d4", "project_w", "project_b"], ["p"],
                     name="project"),
    helper.make_node("Relu", ["p"], ["r"], name="project_relu"),
    helper.make_node("GlobalAveragePool", ["r"], ["g"], name="pool"),
    helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
    helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], name="fc",
                     transB=1),
]
tensors = [numpy_helper.from_array(v, k) for k, v in initializers.items()]
tensors += [numpy_helper.from_array(np.array(v, np.float32), k)
            for k, v in (("zero", 0.0), ("six", 6.0), ("four", 4.0))]
graph = helper.make_graph(
    nodes, "separable",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8, 10, 10])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])],
    tensors)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
with open(os.path.join(out, "block.onnx"), "wb") as f:
    f.write(model.SerializeToString())
np.save(os.path.join(out, "data.npy"), normal(32, 8, 10, 10))
with open(os.path.join(out, "per_tensor.json"), "w") as f:
    json.dump({"layers": [
        {"name": cls, "is_keras_class": True,
         "weight_quantizer": {"per_channel": False}}
        for cls in ("Conv2D", "DepthwiseConv2D", "Dense")]}, f)
