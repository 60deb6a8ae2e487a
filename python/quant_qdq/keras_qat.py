"""Quantization-aware training of Keras models, at quant-qdq's placements.

    qat = quantize_model(model, custom_qdq_cases=[ResNetV1QDQCase()],
                         qat=True)                    # a keras.Model
    qat.compile(...); qat.fit(...)
    onnx_model = export_qat_model(qat)   # QDQ ONNX with the learned ranges

The placement is insert-qdq's (mode, QuantizationSpec, cases), decided on
the imported model; the returned model is the user's, rebuilt layer by
layer, with

- a FakeQuantize layer on every tensor that a layer reads quantized (one
  per tensor, shared by its quantized readers: the horizontal fusion
  TensorRT wants), and
- each layer whose kernel is quantized wrapped in QuantizeWeights, which
  runs it with the kernel fake-quantized per output channel.

Both behave as the seed toolkit's wrappers do: symmetric, narrow range,
round half to even; straight-through gradient inside the range and zero
outside; activation ranges tracked as the last batch's max |x| (or a
moving average), kept in non-trainable variables that start at 6; weight
ranges the kernel's max |w| per output channel at every step.

After training, export_qat_model imports the trained model as it is: every
FakeQuantize becomes a Q/DQ pair with the learned range, every
QuantizeWeights a per-channel weight Q/DQ, placement unchanged.

Keras 3 models only for now (tf.keras models are imported and quantized
post-training, not yet trained here).
"""

import keras
from keras import ops

__all__ = ["FakeQuantize", "QuantizeWeights", "fake_quantize",
           "quantize_keras_model", "export_qat_model", "RANGE_TRACKING"]

RANGE_TRACKING = ("last_value", "moving_average")


def _storage_max(num_bits: int) -> int:
    return 2 ** (num_bits - 1) - 1


def fake_quantize(x, amax, num_bits: int = 8, narrow_range: bool = True):
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


@keras.saving.register_keras_serializable(package="quant_qdq")
class FakeQuantize(keras.layers.Layer):
    """Fake quantization of an activation, per tensor. In training, the
    range is the batch's max |x| (`last_value`) or its moving average
    (`moving_average`, decay `ema_decay`); at inference, the tracked one."""

    def __init__(self, num_bits: int = 8, narrow_range: bool = True,
                 range_tracking: str = "last_value", ema_decay: float = 0.999,
                 initial_amax: float = 6.0, **kwargs):
        super().__init__(**kwargs)
        if range_tracking not in RANGE_TRACKING:
            raise ValueError("range_tracking must be one of %s, got %r"
                             % (", ".join(RANGE_TRACKING), range_tracking))
        if not 2 <= int(num_bits) <= 16:
            raise ValueError("num_bits must be 2 to 16, got %r" % num_bits)
        self.num_bits = int(num_bits)
        self.narrow_range = bool(narrow_range)
        self.range_tracking = range_tracking
        self.ema_decay = float(ema_decay)
        self.initial_amax = float(initial_amax)

    def build(self, input_shape):
        self.amax = self.add_weight(
            name="amax", shape=(), trainable=False,
            initializer=keras.initializers.Constant(self.initial_amax))

    def call(self, x, training=None):
        amax = self.amax
        if training:
            batch = ops.max(ops.abs(ops.stop_gradient(x)))
            if self.range_tracking == "moving_average":
                batch = (self.ema_decay * self.amax
                         + (1.0 - self.ema_decay) * batch)
            self.amax.assign(batch)
            amax = batch
        return fake_quantize(x, amax, self.num_bits, self.narrow_range)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update(num_bits=self.num_bits, narrow_range=self.narrow_range,
                      range_tracking=self.range_tracking,
                      ema_decay=self.ema_decay,
                      initial_amax=self.initial_amax)
        return config


# The axes of a kernel that one output channel's range spans.
_KERNEL_RANGE_AXES = {"Conv2D": (0, 1, 2), "DepthwiseConv2D": (0, 1),
                      "Dense": (0,)}


@keras.saving.register_keras_serializable(package="quant_qdq")
class QuantizeWeights(keras.layers.Wrapper):
    """Runs a Conv2D, DepthwiseConv2D or Dense with its kernel
    fake-quantized per output channel, the range being the kernel's max
    |w| per channel at each call."""

    def __init__(self, layer, num_bits: int = 8, narrow_range: bool = True,
                 **kwargs):
        kind = type(layer).__name__
        if kind not in _KERNEL_RANGE_AXES:
            raise ValueError("QuantizeWeights wraps %s layers, not %s"
                             % ("/".join(_KERNEL_RANGE_AXES), kind))
        kwargs.setdefault("name", "quant_" + layer.name)
        super().__init__(layer, **kwargs)
        self.num_bits = int(num_bits)
        self.narrow_range = bool(narrow_range)

    def build(self, input_shape):
        if not self.layer.built:
            self.layer.build(input_shape)
        self.built = True

    def quantized_kernel(self):
        kernel = self.layer.kernel
        axes = _KERNEL_RANGE_AXES[type(self.layer).__name__]
        amax = ops.max(ops.abs(ops.stop_gradient(kernel)), axis=axes,
                       keepdims=True)
        return fake_quantize(kernel, amax, self.num_bits, self.narrow_range)

    def call(self, x):
        layer = self.layer
        kernel = self.quantized_kernel()
        kind = type(layer).__name__
        if kind == "Dense":
            y = ops.matmul(x, kernel)
        elif kind == "Conv2D":
            y = ops.conv(x, kernel, strides=layer.strides,
                         padding=layer.padding, data_format=layer.data_format,
                         dilation_rate=layer.dilation_rate)
        else:
            y = ops.depthwise_conv(x, kernel, strides=layer.strides,
                                   padding=layer.padding,
                                   data_format=layer.data_format,
                                   dilation_rate=layer.dilation_rate)
        if layer.use_bias:
            y = y + layer.bias
        if layer.activation is not None:
            y = layer.activation(y)
        return y

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def get_config(self):
        config = super().get_config()
        config.update(num_bits=self.num_bits, narrow_range=self.narrow_range)
        return config


def _placement(report: str):
    """{layer: (quantized input positions, weight quantized)} from
    insert-qdq's report."""
    rows = {}
    for line in report.splitlines()[1:]:
        if line.startswith("#") or not line.strip():
            continue
        name, _, inputs, weight, _ = line.split(None, 4)
        positions = [int(i) for i in inputs.strip("[]").split(",") if i]
        rows[name] = (positions, weight == "yes")
    return rows


def _clone(layer):
    """A new layer with `layer`'s configuration (weights copied once it is
    built)."""
    return layer.__class__.from_config(layer.get_config())


def quantize_keras_model(model, quantization_mode: str = "full",
                         quantization_spec=None, custom_qdq_cases=None, *,
                         weight_bits: int = 8, activation_bits: int = 8,
                         range_tracking: str = "last_value",
                         ema_decay: float = 0.999) -> keras.Model:
    """A copy of the Keras 3 `model` ready for quantization-aware training,
    with fake quantization where insert-qdq places Q/DQ for the given mode,
    spec and cases (see the module's docstring). The original model is
    left untouched; the copy starts from its weights."""
    from .keras_import import import_keras, walk_graph
    from .quantize import _quantize

    if not isinstance(model, keras.Model):
        raise TypeError("quantization-aware training takes a Keras 3 "
                        "keras.Model, got %s.%s (tf.keras models are "
                        "quantized post-training only)"
                        % (type(model).__module__, type(model).__name__))
    module = import_keras(model)
    placement = _placement(_quantize(
        module, quantization_mode, quantization_spec, custom_qdq_cases,
        propagate=False, weight_bits=weight_bits,
        activation_bits=activation_bits))
    # One FakeQuantize per quantized tensor, made when first read.
    quantized = {}

    def fake_quantized(tensor, source_name):
        key = id(tensor)
        if key not in quantized:
            quantized[key] = FakeQuantize(
                activation_bits, range_tracking=range_tracking,
                ema_decay=ema_decay, name=source_name + "_quantize")(tensor)
        return quantized[key]

    producers = {}

    def visit(layer, node, inputs):
        positions, weight = placement.get(layer.name, ([], False))
        args = list(inputs)
        for i in positions:
            if i < len(args):
                args[i] = fake_quantized(args[i], producers[id(args[i])])
        clone = _clone(layer)
        runner = (QuantizeWeights(clone, weight_bits)
                  if weight and type(layer).__name__ in _KERNEL_RANGE_AXES
                  else clone)
        outputs = runner(args if len(args) > 1 else args[0])
        clone.set_weights(layer.get_weights())
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) \
            else [outputs]
        for tensor in outputs:
            producers[id(tensor)] = layer.name
        return outputs

    inputs = []
    for tensor in model.inputs:
        layer = tensor._keras_history[0]
        new = keras.Input(batch_shape=tensor.shape, dtype=tensor.dtype,
                          name=layer.name)
        producers[id(new)] = layer.name
        inputs.append(new)
    outputs = walk_graph(model, inputs, visit)
    qat = keras.Model(inputs if len(inputs) > 1 else inputs[0],
                      outputs if len(outputs) > 1 else outputs[0],
                      name=model.name + "_qat")
    return qat


def export_qat_model(model, *, output=None, integer_weights: bool = True,
                     external_data: str = "auto"):
    """QDQ ONNX of a model quantize_keras_model made (trained or not): its
    FakeQuantize layers become Q/DQ pairs with their tracked ranges, its
    QuantizeWeights per-channel weight Q/DQ. Returns an onnx.ModelProto,
    or writes `output` and returns its path."""
    from .ir import export_onnx, save_onnx
    from .keras_import import import_keras

    module = import_keras(model)
    if output is not None:
        return save_onnx(module, output, integer_weights=integer_weights,
                         external_data=external_data)
    return export_onnx(module, integer_weights=integer_weights)
