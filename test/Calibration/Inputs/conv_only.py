#!/usr/bin/env python3
"""Writes DIR/conv.onnx, one convolution whose output is a feature map (no
classifier), and 8 samples for it, DIR/conv.npy:

    conv_only.py DIR
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(3)
out = sys.argv[1]
weight = numpy_helper.from_array(
    rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
graph = helper.make_graph(
    [helper.make_node("Conv", ["x", "w"], ["y"], name="conv", pads=[1] * 4)],
    "features",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 6, 6])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4, 6, 6])],
    [weight])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
with open(os.path.join(out, "conv.onnx"), "wb") as f:
    f.write(model.SerializeToString())
np.save(os.path.join(out, "conv.npy"),
        rng.standard_normal((8, 3, 6, 6)).astype(np.float32))
