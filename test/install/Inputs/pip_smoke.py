"""What a user of a pip-installed quant_qdq does first, in an environment
that has only the package and its declared dependencies (numpy, onnx): a
small ResNet-style ONNX model (the tests' own, python/tests/qdq_helpers.py,
built with onnx.helper), quantized and calibrated through the Python API;
the result passes ONNX's full checker. Also writes the model, a
calibration batch and one sample for the tools' turn.

    python pip_smoke.py OUT_DIR
"""

import os
import sys

import numpy as np
import onnx

import quant_qdq as qq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python", "tests"))
from qdq_helpers import resnet_block_model  # noqa: E402


def main(out_dir):
    model = resnet_block_model()
    model_path = os.path.join(out_dir, "block.onnx")
    onnx.save(model, model_path)
    images = np.random.default_rng(0).normal(
        0, 1, (16, 3, 8, 8)).astype(np.float32)
    np.save(os.path.join(out_dir, "calib.npy"), images)
    np.save(os.path.join(out_dir, "x.npy"), images[:1])

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
