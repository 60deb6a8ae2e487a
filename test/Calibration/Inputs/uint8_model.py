"""An image-style model whose input is raw uint8 pixels (Cast, scale by
1/255, MatMul), and uint8 calibration and evaluation arrays, into DIR:

    uint8_model.py DIR
"""
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

out = Path(sys.argv[1])
rng = np.random.default_rng(0)
nodes = [helper.make_node("Cast", ["pixels"], ["f"], to=T.FLOAT, name="cast"),
         helper.make_node("Mul", ["f", "s"], ["g"], name="scale"),
         helper.make_node("MatMul", ["g", "w"], ["y"], name="fc")]
graph = helper.make_graph(
    nodes, "uint8_pixels",
    [helper.make_tensor_value_info("pixels", T.UINT8, ["n", 16])],
    [helper.make_tensor_value_info("y", T.FLOAT, ["n", 8])],
    [numpy_helper.from_array(np.float32(1 / 255), "s"),
     numpy_helper.from_array(rng.standard_normal((16, 8)).astype(np.float32), "w")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, out / "model.onnx")
np.save(out / "calib.npy", rng.integers(0, 256, (32, 16)).astype(np.uint8))
np.save(out / "x.npy", rng.integers(0, 256, (4, 16)).astype(np.uint8))
