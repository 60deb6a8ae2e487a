"""What a user of a pip-installed quant_qdq does first, in an environment
that has only the package and its declared dependencies (numpy, onnx): a
small ResNet-style ONNX model, written with onnx.helper, quantized and
calibrated through the Python API; the result passes ONNX's full checker.
Also writes the model and a calibration batch for the tools' turn.

    python pip_smoke.py OUT_DIR
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import quant_qdq as qq


def residual_block(rng):
    """Conv-ReLU-Conv, added to its input, ReLU: the block ResNetV1QDQCase
    places Q/DQ pairs in."""
    def conv(name, x, y):
        weight = numpy_helper.from_array(
            rng.normal(0, 0.3, (8, 8, 3, 3)).astype(np.float32), name + ".w")
        bias = numpy_helper.from_array(
            rng.normal(0, 0.1, 8).astype(np.float32), name + ".b")
        node = helper.make_node("Conv", [x, weight.name, bias.name], [y],
                                name=name, pads=[1, 1, 1, 1])
        return node, [weight, bias]

    conv1, init1 = conv("conv1", "input", "c1")
    conv2, init2 = conv("conv2", "r1", "c2")
    nodes = [conv1, helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             conv2, helper.make_node("Add", ["input", "c2"], ["sum"],
                                     name="add"),
             helper.make_node("Relu", ["sum"], ["output"], name="relu2")]
    shape = ["N", 8, 16, 16]
    graph = helper.make_graph(
        nodes, "block",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, shape)],
        init1 + init2)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def main(out_dir):
    rng = np.random.default_rng(0)
    model = residual_block(rng)
    model_path = os.path.join(out_dir, "block.onnx")
    onnx.save(model, model_path)
    images = rng.normal(0, 1, (16, 8, 16, 16)).astype(np.float32)
    np.save(os.path.join(out_dir, "calib.npy"), images)

    qdq_model = qq.quantize_model(model_path,
                                  custom_qdq_cases=[qq.ResNetV1QDQCase()],
                                  calibration_data=images)
    onnx.checker.check_model(qdq_model, full_check=True)
    ops = [node.op_type for node in qdq_model.graph.node]
    print("version", qq.__version__)
    print("QuantizeLinear", ops.count("QuantizeLinear"))
    print("DequantizeLinear", ops.count("DequantizeLinear"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
