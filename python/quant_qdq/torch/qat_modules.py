"""The modules of torch quantization-aware training: FakeQuantize on
activations and QuantizedWeights around convolutions and linear layers.

The semantics are the Keras layers' (keras/qat_layers.py): symmetric,
narrow range, round half to even, straight-through gradient inside the
range; activation ranges the last batch's max |x| or its moving average,
weight ranges max |w| per output channel.
"""

import torch

from .._options import check_range_tracking

__all__ = ["FakeQuantize", "QuantizedWeights", "fake_quantize"]


def fake_quantize(x: torch.Tensor, amax: torch.Tensor, num_bits: int = 8,
                  narrow_range: bool = True) -> torch.Tensor:
    """Symmetric fake quantization of `x` with range `amax` (broadcast):
    clamp, round half to even in steps of amax / qmax; gradient 1 inside
    the range, its ends included, 0 outside (the clamp's). (minimum and
    maximum would halve the gradient of a value equal to the end: the
    largest weight of each channel.)"""
    qmax = 2 ** (num_bits - 1) - 1
    amax = torch.clamp(amax.to(x.dtype), min=1e-12)
    scale = amax / qmax
    low = -scale * (qmax if narrow_range else qmax + 1)
    clamped = torch.clamp(x, low, amax)
    rounded = torch.round(clamped / scale) * scale
    return clamped + (rounded - clamped).detach()


class FakeQuantize(torch.nn.Module):
    """Fake quantization of an activation, per tensor; in training the
    range is the batch's max |x| (last_value) or its moving average."""

    def __init__(self, num_bits: int = 8, narrow_range: bool = True,
                 range_tracking: str = "last_value", ema_decay: float = 0.999,
                 initial_amax: float = 6.0, tensor_names=()):
        super().__init__()
        check_range_tracking(range_tracking)
        self.num_bits = int(num_bits)
        self.narrow_range = bool(narrow_range)
        self.range_tracking = range_tracking
        self.ema_decay = float(ema_decay)
        # The ONNX tensors this quantizer stands for (export's table keys).
        self.tensor_names = list(tensor_names)
        self.quantizing = True
        self.register_buffer("amax", torch.tensor(float(initial_amax)))

    def forward(self, x):
        if not self.quantizing:
            return x
        amax = self.amax
        if self.training:
            batch = x.detach().abs().max()
            if self.range_tracking == "moving_average":
                batch = (self.ema_decay * self.amax
                         + (1.0 - self.ema_decay) * batch)
            self.amax.copy_(batch)
            amax = batch
        return fake_quantize(x, amax, self.num_bits, self.narrow_range)

    def extra_repr(self):
        return "num_bits=%d, amax=%.4g, %s" % (
            self.num_bits, float(self.amax), self.range_tracking)


class QuantizedWeights(torch.nn.Module):
    """Runs a Conv2d or Linear with its weight fake-quantized per output
    channel (dimension 0), the range being max |w| per channel."""

    def __init__(self, layer: torch.nn.Module, num_bits: int = 8,
                 narrow_range: bool = True):
        super().__init__()
        if not isinstance(layer, (torch.nn.Conv2d, torch.nn.Linear)):
            raise ValueError("QuantizedWeights wraps Conv2d and Linear, "
                             "not %s" % type(layer).__name__)
        self.layer = layer
        self.num_bits = int(num_bits)
        self.narrow_range = bool(narrow_range)
        self.quantizing = True

    def forward(self, x):
        layer = self.layer
        if not self.quantizing:
            return layer(x)
        weight = layer.weight
        dims = tuple(range(1, weight.dim()))
        amax = weight.detach().abs().amax(dim=dims, keepdim=True)
        weight = fake_quantize(weight, amax, self.num_bits,
                               self.narrow_range)
        if isinstance(layer, torch.nn.Linear):
            return torch.nn.functional.linear(x, weight, layer.bias)
        return layer._conv_forward(x, weight, layer.bias)
