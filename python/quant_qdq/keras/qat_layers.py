"""The layers of Keras quantization-aware training: FakeQuantize and
QuantizeWeights, for Keras 3 and tf.keras.

Both behave as the seed toolkit's wrappers do: symmetric, narrow range,
round half to even; straight-through gradient inside the range and zero
outside; activation ranges tracked as the last batch's max |x| (or a
moving average), kept in non-trainable variables that start at 6; weight
ranges the kernel's max |w| per output channel at every step.

Keras 3 and tf.keras (tf-keras) models alike: the layers are defined once
over the few tensor operations they need, for each Keras's own ops, and
registered for loading saved models (package "quant_qdq").
"""

import keras

from .._options import check_range_tracking, checked_bits
from .tf_ops import tf_ops

__all__ = ["FakeQuantize", "QuantizeWeights", "fake_quantize", "layers_of",
           "KERNEL_RANGE_AXES"]


def _storage_max(num_bits: int) -> int:
    return 2 ** (num_bits - 1) - 1


def fake_quantize(x, amax, num_bits: int = 8, narrow_range: bool = True,
                  ops=keras.ops):
    """Symmetric fake quantization of `x` with range `amax` (broadcast to
    `x`): clamp to the range, round half to even in steps of amax / qmax.
    The gradient is 1 inside the range and 0 outside (the clamp's)."""
    qmax = _storage_max(num_bits)
    amax = ops.maximum(ops.cast(amax, x.dtype), 1e-12)
    scale = amax / qmax
    low = -scale * (qmax if narrow_range else qmax + 1)
    clamped = ops.minimum(ops.maximum(x, low), amax)
    rounded = ops.round(clamped / scale) * scale
    return clamped + ops.stop_gradient(rounded - clamped)


# The axes of a kernel that one output channel's range spans.
KERNEL_RANGE_AXES = {"Conv2D": (0, 1, 2), "DepthwiseConv2D": (0, 1),
                      "Dense": (0,)}


def _define_layers(k, ops):
    """FakeQuantize and QuantizeWeights for the Keras `k` (keras or
    tf_keras) computing with `ops`, registered for its serialization."""
    register = k.saving.register_keras_serializable(package="quant_qdq")

    @register
    class FakeQuantize(k.layers.Layer):
        """Fake quantization of an activation, per tensor. In training,
        the range is the batch's max |x| (`last_value`) or its moving
        average (`moving_average`, decay `ema_decay`); at inference, the
        tracked one."""

        def __init__(self, num_bits: int = 8, narrow_range: bool = True,
                     range_tracking: str = "last_value",
                     ema_decay: float = 0.999, initial_amax: float = 6.0,
                     **kwargs):
            super().__init__(**kwargs)
            check_range_tracking(range_tracking)
            self.num_bits = checked_bits(num_bits)
            self.narrow_range = bool(narrow_range)
            self.range_tracking = range_tracking
            self.ema_decay = float(ema_decay)
            self.initial_amax = float(initial_amax)
            # Off while calibrate_ranges reads the float model's ranges.
            self.quantizing = True

        def build(self, input_shape):
            self.amax = self.add_weight(
                name="amax", shape=(), trainable=False,
                initializer=k.initializers.Constant(self.initial_amax))
            self.built = True

        def call(self, x, training=None):
            if not self.quantizing:
                return x
            amax = self.amax
            if training:
                batch = ops.max(ops.abs(ops.stop_gradient(x)))
                if self.range_tracking == "moving_average":
                    batch = (self.ema_decay * self.amax
                             + (1.0 - self.ema_decay) * batch)
                self.amax.assign(batch)
                amax = batch
            return fake_quantize(x, amax, self.num_bits, self.narrow_range,
                                 ops)

        def compute_output_shape(self, input_shape):
            return input_shape

        def get_config(self):
            config = super().get_config()
            config.update(num_bits=self.num_bits,
                          narrow_range=self.narrow_range,
                          range_tracking=self.range_tracking,
                          ema_decay=self.ema_decay,
                          initial_amax=self.initial_amax)
            return config

    @register
    class QuantizeWeights(k.layers.Wrapper):
        """Runs a Conv2D, DepthwiseConv2D or Dense with its kernel
        fake-quantized per output channel, the range being the kernel's
        max |w| per channel at each call."""

        def __init__(self, layer, num_bits: int = 8,
                     narrow_range: bool = True, **kwargs):
            kind = type(layer).__name__
            if kind not in KERNEL_RANGE_AXES:
                raise ValueError("QuantizeWeights wraps %s layers, not %s"
                                 % ("/".join(KERNEL_RANGE_AXES), kind))
            kwargs.setdefault("name", "quant_" + layer.name)
            super().__init__(layer, **kwargs)
            self.num_bits = checked_bits(num_bits)
            self.narrow_range = bool(narrow_range)
            self.quantizing = True

        def build(self, input_shape):
            if not self.layer.built:
                self.layer.build(input_shape)
            self.built = True

        def kernel(self):
            # tf.keras names a depthwise kernel apart.
            kernel = getattr(self.layer, "depthwise_kernel", None)
            return self.layer.kernel if kernel is None else kernel

        def quantized_kernel(self):
            kernel = self.kernel()
            axes = KERNEL_RANGE_AXES[type(self.layer).__name__]
            amax = ops.max(ops.abs(ops.stop_gradient(kernel)), axis=axes,
                           keepdims=True)
            return fake_quantize(kernel, amax, self.num_bits,
                                 self.narrow_range, ops)

        def call(self, x):
            layer = self.layer
            if not self.quantizing:
                return layer(x)
            kernel = self.quantized_kernel()
            kind = type(layer).__name__
            if kind == "Dense":
                y = ops.matmul(x, kernel)
            else:
                conv = ops.conv if kind == "Conv2D" else ops.depthwise_conv
                y = conv(x, kernel, strides=tuple(layer.strides),
                         padding=layer.padding,
                         data_format=layer.data_format,
                         dilation_rate=tuple(layer.dilation_rate))
            if layer.use_bias:
                y = y + layer.bias
            if layer.activation is not None:
                y = layer.activation(y)
            return y

        def compute_output_shape(self, input_shape):
            return self.layer.compute_output_shape(input_shape)

        def get_config(self):
            config = super().get_config()
            config.update(num_bits=self.num_bits,
                          narrow_range=self.narrow_range)
            return config

    return FakeQuantize, QuantizeWeights


FakeQuantize, QuantizeWeights = _define_layers(keras, keras.ops)
_LAYERS = {"keras": (FakeQuantize, QuantizeWeights)}


def layers_of(keras_name: str):
    """(the Keras module, FakeQuantize, QuantizeWeights, ops) of "keras"
    or "tf_keras"; the tf.keras layers are defined (and registered for
    loading saved models) on first use."""
    if keras_name == "tf_keras":
        import tf_keras
        if "tf_keras" not in _LAYERS:
            _LAYERS["tf_keras"] = _define_layers(tf_keras, tf_ops())
        return (tf_keras, *_LAYERS["tf_keras"], tf_ops())
    return (keras, *_LAYERS["keras"], keras.ops)
