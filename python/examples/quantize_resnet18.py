"""Quantize torchvision's ResNet-18 for TensorRT, as the toolkit's model zoo
does: Q/DQ placed by ResNetV1QDQCase, activation scales calibrated with the
entropy method, the result saved as a QDQ ONNX model.

    PYTHONPATH=build/python_packages \
        python3 python/examples/quantize_resnet18.py

Random weights and random calibration data keep the example self-contained;
use a trained model and a few hundred real images in practice.
"""

import collections

import onnx
import torch
import torchvision

from quant_qdq import ResNetV1QDQCase, quantize_model


def main():
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    example = torch.randn(1, 3, 32, 32)
    # Batches of calibration samples; a DataLoader works the same way.
    calibration = [torch.randn(4, 3, 32, 32) for _ in range(2)]

    q_model = quantize_model(model, example_input=example,
                             custom_qdq_cases=[ResNetV1QDQCase()],
                             calibration_data=calibration,
                             calibration_method="entropy")
    onnx.checker.check_model(q_model)
    onnx.save(q_model, "resnet18.qdq.onnx")

    counts = collections.Counter(n.op_type for n in q_model.graph.node)
    print("QuantizeLinear: %d, DequantizeLinear: %d, Conv: %d, Add: %d"
          % (counts["QuantizeLinear"], counts["DequantizeLinear"],
             counts["Conv"], counts["Add"]))
    print("saved resnet18.qdq.onnx; run it with "
          "trtexec --onnx=resnet18.qdq.onnx --int8")


if __name__ == "__main__":
    main()
