"""torch.nn.Module input: exported with torch.onnx.export on the way.

Needs Debian's python3-torch and python3-torchvision (scripts/setup.sh);
their absence fails these tests rather than skipping them.
"""

import numpy as np
import pytest
import torch
import torchvision

from quant_qdq import ResNetV1QDQCase, quantize_model
from qdq_helpers import initializers, op_counts, quantized_inputs

CONV_CHAIN = {"BatchNormalization", "Relu", "Clip", "Dropout", "Identity"}


class BasicBlock(torch.nn.Module):
    """Conv-BN-ReLU, then a ResNet-v1 basic block, then a classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn0 = torch.nn.BatchNorm2d(8)
        self.conv1 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(8, 10)

    def forward(self, x):
        x = torch.relu(self.bn0(self.stem(x)))
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        x = torch.relu(x + y)
        return self.fc(torch.flatten(self.pool(x), 1))


def residual_adds_ok(model):
    """(number of Adds, Adds whose one unquantized input is conv-fed with a
    single consumer and whose other inputs are quantized)."""
    producer = {o: n for n in model.graph.node for o in n.output}
    consumers = {}
    for n in model.graph.node:
        for i in n.input:
            consumers[i] = consumers.get(i, 0) + 1
    inputs = quantized_inputs(model)

    def conv_fed(name):
        node = producer.get(name)
        while node is not None and node.op_type in CONV_CHAIN:
            node = producer.get(node.input[0])
        return node is not None and node.op_type == "Conv"

    adds = [n for n in model.graph.node if n.op_type == "Add"]
    ok = 0
    for add in adds:
        plain = [i for i, q in zip(add.input, inputs[add.name]) if not q]
        if (len(plain) == 1 and conv_fed(plain[0])
                and consumers[plain[0]] == 1):
            ok += 1
    return len(adds), ok


@pytest.fixture
def block():
    torch.manual_seed(0)
    return BasicBlock().eval()


def test_torch_module_with_resnet_v1_case(block):
    x = torch.randn(1, 3, 16, 16)
    q = quantize_model(block, example_input=x,
                       custom_qdq_cases=[ResNetV1QDQCase()])
    counts = op_counts(q)
    # BN folded into the convolutions by the export in eval mode.
    assert counts["Conv"] == 3 and counts["BatchNormalization"] == 0
    assert residual_adds_ok(q) == (1, 1)
    inputs = quantized_inputs(q)
    convs = [n.name for n in q.graph.node if n.op_type in ("Conv", "Gemm")]
    assert all(inputs[c][:2] == [True, True] for c in convs)
    assert q.graph.input[0].name == "input"
    assert not block.training


def test_torch_module_calibrated(block):
    data = torch.randn(8, 3, 16, 16)
    q = quantize_model(block, example_input=data[:1],
                       custom_qdq_cases=[ResNetV1QDQCase()],
                       calibration_data=data)
    scale = initializers(q)["input_scale"]
    assert float(scale) == pytest.approx(
        float(data.abs().max()) / 127, rel=1e-6)


def test_batch_is_free_unless_fixed(block):
    """Traced on one sample, the exported model runs any batch, as the
    module does; dynamic_axes=None keeps the example's sizes."""
    from qdq_helpers import run_onnx
    block.eval()
    x = torch.randn(8, 3, 16, 16)
    q = quantize_model(block, example_input=x[:1])
    assert q.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert not q.graph.output[0].type.tensor_type.shape.dim[0].HasField(
        "dim_value")
    with torch.no_grad():
        want = block(x).numpy()
    # Quantized at amax 6 (uncalibrated), so not the float numbers.
    assert run_onnx(q, x.numpy()).shape == want.shape
    fixed = quantize_model(block, example_input=x[:1], dynamic_axes=None)
    assert fixed.graph.input[0].type.tensor_type.shape.dim[0].dim_value == 1
    with pytest.raises(Exception, match="input"):
        run_onnx(fixed, x.numpy())
    with pytest.raises(ValueError, match="dynamic_axes"):
        quantize_model(block, example_input=x[:1], dynamic_axes="all")


def test_training_mode_is_kept(block):
    block.train()
    quantize_model(block, example_input=torch.randn(1, 3, 16, 16))
    assert block.training


def test_torch_module_needs_example_input(block):
    with pytest.raises(ValueError, match="example_input"):
        quantize_model(block)


def test_torchvision_resnet18():
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    q = quantize_model(model, example_input=torch.randn(1, 3, 32, 32),
                       custom_qdq_cases=[ResNetV1QDQCase()])
    adds, ok = residual_adds_ok(q)
    assert adds == 8 and ok == 8
    inputs = quantized_inputs(q)
    convs = [n.name for n in q.graph.node if n.op_type in ("Conv", "Gemm")]
    assert len(convs) == 21
    assert all(inputs[c][:2] == [True, True] for c in convs)
    # Weights are quantized per output channel.
    weight_dq = [n for n in q.graph.node if n.op_type == "DequantizeLinear"
                 and any(a.name == "axis" for a in n.attribute)]
    assert len(weight_dq) == 21
    assert np.all([initializers(q)[n.input[1]].ndim == 1
                   for n in weight_dq])
