"""Quantization-aware training of torch modules (quant_qdq.torch.qat): fake
quantization at insert-qdq's placements in the traced module, and the
export of the trained module with its learned ranges."""

import operator

import numpy as np
import pytest
import torch
import torchvision

import quant_qdq as qq
from qdq_helpers import run_onnx
from quant_qdq.torch.qat import (FakeQuantize, QuantizedWeights,
                                 export_qat_module, fake_quantize)


class Block(torch.nn.Module):
    """Conv-BN-ReLU, a residual block with an in-place add and ReLU, max
    pooling, a classifier."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1, bias=False),
            torch.nn.BatchNorm2d(8), torch.nn.ReLU(inplace=True))
        self.conv1 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = torch.nn.BatchNorm2d(8)
        self.relu = torch.nn.ReLU(inplace=True)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        x = self.stem(x)
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        y += x
        x = self.pool(self.relu(y))
        return self.fc(torch.flatten(torch.mean(x, (2, 3), keepdim=True), 1))


def quantized_onnx_tensors(model, example, case=qq.ResNetV1QDQCase):
    """The activation tensors insert-qdq quantizes in the ONNX export (the
    inputs of its QuantizeLinear nodes: weights are int8 initializers)."""
    onnx_model = qq.quantize_model(model, example_input=example,
                                   custom_qdq_cases=[case()],
                                   propagate=False)
    return sorted(n.input[0] for n in onnx_model.graph.node
                  if n.op_type == "QuantizeLinear")


def test_fake_quantize_forward_and_gradient():
    """Narrow symmetric 8-bit, round half to even, clamped; the gradient
    passes inside the range, its end included (a weight equal to its
    channel's max |w|), and stops outside."""
    x = (torch.tensor([0.5, 1.5, 2.5, -200.0, 200.0, 127.0]) /
         127).requires_grad_()
    y = fake_quantize(x, torch.tensor(1.0))
    np.testing.assert_allclose(y.detach().numpy(),
                               np.array([0, 2, 2, -127, 127, 127]) / 127,
                               rtol=0, atol=1e-7)
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize("range_tracking", ["last_value", "moving_average"])
def test_ranges_follow_training(range_tracking):
    fq = FakeQuantize(range_tracking=range_tracking, ema_decay=0.9)
    fq.train()
    fq(torch.tensor([0.5, -3.0]))
    want = 3.0 if range_tracking == "last_value" else 0.9 * 6 + 0.1 * 3
    assert float(fq.amax) == pytest.approx(want)
    fq.eval()
    fq(torch.tensor([100.0]))
    assert float(fq.amax) == pytest.approx(want)


def test_placement_is_insert_qdqs():
    torch.manual_seed(0)
    model = Block().eval()
    example = torch.zeros(1, 3, 8, 8)
    qat = qq.quantize_model(model, example_input=example,
                            custom_qdq_cases=[qq.ResNetV1QDQCase()],
                            qat=True)
    names = sorted(t for m in qat.modules() if isinstance(m, FakeQuantize)
                   for t in m.tensor_names)
    assert names == sorted(quantized_onnx_tensors(model, example))
    wrapped = sorted(n for n, m in qat.named_modules()
                     if isinstance(m, QuantizedWeights))
    assert wrapped == ["conv1", "conv2", "fc", "stem.0"]
    # The residual Add reads the stem's output quantized and the
    # convolution branch in float.
    add = next(n for n in qat.graph.nodes if n.op == "call_function"
               and n.target in (operator.add, operator.iadd))
    assert [a.name for a in add.args] == ["bn2", "stem_2_quantize"]
    # The user's module is untouched, and its parameters are not the
    # copy's.
    assert not any(isinstance(m, (FakeQuantize, QuantizedWeights))
                   for m in model.modules())
    assert {id(p) for p in qat.parameters()}.isdisjoint(
        id(p) for p in model.parameters())


def _gradient_of_quantized_weight(qat, wrapper, x, labels):
    """The loss's gradient with respect to the fake-quantized weight of
    `wrapper` (a QuantizedWeights of a Conv2d), by autograd on that
    weight's value held as a leaf of its own."""
    layer = wrapper.layer
    weight = layer.weight.detach()
    amax = weight.abs().amax(dim=(1, 2, 3), keepdim=True)
    quantized = fake_quantize(weight, amax, wrapper.num_bits,
                              wrapper.narrow_range).requires_grad_()
    wrapper.forward = lambda inp: layer._conv_forward(inp, quantized,
                                                      layer.bias)
    try:
        torch.nn.functional.cross_entropy(qat(x), labels).backward()
    finally:
        del wrapper.forward
    return quantized.grad


def test_trained_module_exports_with_its_ranges():
    torch.manual_seed(0)
    model = Block().eval()
    x = torch.randn(16, 3, 8, 8)
    qat = qq.quantize_model(model, example_input=x[:4],
                            custom_qdq_cases=[qq.ResNetV1QDQCase()],
                            qat=True, calibration_data=x.numpy())
    first = float(qat.x_quantize.amax)
    assert first == pytest.approx(float(x.abs().max()))
    optimizer = torch.optim.Adam(qat.parameters(), 1e-2)
    qat.train()
    labels = torch.arange(16) % 4
    for _ in range(5):
        expected = _gradient_of_quantized_weight(qat, qat.conv1, x, labels)
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(qat(x), labels).backward()
        # Straight through: the float weight gets the quantized weight's
        # gradient unchanged (per-channel max |w| clips none of it).
        torch.testing.assert_close(qat.conv1.layer.weight.grad, expected)
        optimizer.step()
    qat.eval()
    onnx_model = export_qat_module(qat)
    want = qat(x[:4]).detach().numpy()
    got = run_onnx(onnx_model, x[:4].numpy())
    step = np.abs(want).max() / 127
    assert np.abs(got - want).max() < 2 * step
    assert (got.argmax(1) == want.argmax(1)).all()
    assert sum(t.data_type == 3 and len(t.dims) > 1
               for t in onnx_model.graph.initializer) == 4


def test_torchvision_models():
    """Every quantized tensor found in the traced module, every weight
    wrapped, on architectures with in-place ops, nested Sequentials and
    full-path scopes (MobileNetV2's features.0.0)."""
    for build, case, weights in ((torchvision.models.resnet18,
                                  qq.ResNetV1QDQCase, 21),
                                 (torchvision.models.mobilenet_v2,
                                  qq.MobileNetQDQCase, 53)):
        torch.manual_seed(0)
        model = build(num_classes=10).eval()
        example = torch.zeros(1, 3, 32, 32)
        qat = qq.quantize_model(model, example_input=example,
                                custom_qdq_cases=[case()], qat=True)
        tensors = sorted(t for m in qat.modules()
                         if isinstance(m, FakeQuantize)
                         for t in m.tensor_names)
        assert tensors == quantized_onnx_tensors(model, example, case)
        assert sum(isinstance(m, QuantizedWeights)
                   for m in qat.modules()) == weights


def test_errors():
    with pytest.raises(ValueError, match="example_input"):
        qq.quantize_model(Block(), qat=True)
    with pytest.raises(TypeError, match="quantize_model"):
        export_qat_module(torch.nn.Linear(2, 2))
