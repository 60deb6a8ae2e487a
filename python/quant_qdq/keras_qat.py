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

Keras 3 and tf.keras (tf-keras) models alike: the layers are defined once
over the few tensor operations they need, for each Keras's own ops.
"""

import keras

from .quantize import RANGE_TRACKING, _check_range_tracking

__all__ = ["FakeQuantize", "QuantizeWeights", "fake_quantize",
           "quantize_keras_model", "calibrate_ranges", "export_qat_model",
           "RANGE_TRACKING"]


def _storage_max(num_bits: int) -> int:
    return 2 ** (num_bits - 1) - 1


class _TFOps:
    """The keras.ops this module uses, for tf.keras layers (TensorFlow's
    own functions, as tf.keras layers compute with them)."""

    def __init__(self):
        import tensorflow as tf
        self.tf = tf

    def __getattr__(self, name):  # abs, cast, maximum, minimum, round...
        return getattr(self.tf, name)

    def max(self, x, axis=None, keepdims=False):
        return self.tf.reduce_max(x, axis=axis, keepdims=keepdims)

    def conv(self, x, kernel, strides, padding, data_format, dilation_rate):
        return self.tf.nn.convolution(x, kernel, strides=strides,
                                      padding=padding.upper(),
                                      dilations=dilation_rate)

    def depthwise_conv(self, x, kernel, strides, padding, data_format,
                       dilation_rate):
        return self.tf.nn.depthwise_conv2d(
            x, kernel, strides=(1, *strides, 1), padding=padding.upper(),
            dilations=dilation_rate)


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
_KERNEL_RANGE_AXES = {"Conv2D": (0, 1, 2), "DepthwiseConv2D": (0, 1),
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
            _check_range_tracking(range_tracking)
            if not 2 <= int(num_bits) <= 16:
                raise ValueError("num_bits must be 2 to 16, got %r"
                                 % num_bits)
            self.num_bits = int(num_bits)
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
            if kind not in _KERNEL_RANGE_AXES:
                raise ValueError("QuantizeWeights wraps %s layers, not %s"
                                 % ("/".join(_KERNEL_RANGE_AXES), kind))
            kwargs.setdefault("name", "quant_" + layer.name)
            super().__init__(layer, **kwargs)
            self.num_bits = int(num_bits)
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
            axes = _KERNEL_RANGE_AXES[type(self.layer).__name__]
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
            _LAYERS["tf_keras"] = _define_layers(tf_keras, _TFOps())
        return (tf_keras, *_LAYERS["tf_keras"], _TFOps())
    return (keras, *_LAYERS["keras"], keras.ops)


def layers_for(model):
    """layers_of the Keras `model` belongs to."""
    return layers_of("tf_keras" if type(model).__module__.startswith(
        "tf_keras") else "keras")


def _clone(layer):
    """A new layer with `layer`'s configuration (weights copied once it is
    built)."""
    return layer.__class__.from_config(layer.get_config())


def calibrate_ranges(qat, data, batch_size: int = 32):
    """Sets each FakeQuantize's range to the largest |x| it sees on `data`
    (an array of inputs, or a list of arrays for several inputs) in the
    float model, quantization off, as post-training calibration reads
    ranges: QAT then starts from those instead of 6. Streams the data in
    batches; only the running maxima are kept."""
    k, fake_quantize_layer, quantize_weights_layer, ops = layers_for(qat)
    probes = [l for l in qat.layers if isinstance(l, fake_quantize_layer)]
    if not probes:
        return
    quantizers = [l for l in qat.layers
                  if isinstance(l, (fake_quantize_layer,
                                    quantize_weights_layer))]
    for layer in quantizers:
        layer.quantizing = False
    try:
        reader = k.Model(qat.inputs, [ops.max(ops.abs(p.input))
                                      for p in probes])
        maxima = _running_maxima(reader, len(probes), data, batch_size)
    finally:
        for layer in quantizers:
            layer.quantizing = True
    for probe, amax in zip(probes, maxima):
        probe.amax.assign(float(amax))


def _running_maxima(reader, count_outputs, data, batch_size):
    """The largest of each of `reader`'s outputs over `data`'s batches."""
    import numpy as np
    arrays = data if isinstance(data, (list, tuple)) else [data]
    count = len(arrays[0])
    if count == 0:
        raise ValueError("calibration data holds no inputs")
    maxima = np.zeros(count_outputs, np.float32)
    for start in range(0, count, batch_size):
        batch = [np.asarray(a[start:start + batch_size], np.float32)
                 for a in arrays]
        seen = reader(batch, training=False)
        seen = seen if isinstance(seen, (list, tuple)) else [seen]
        maxima = np.maximum(maxima, [float(v) for v in seen])
    return maxima


def quantize_keras_model(model, quantization_mode: str = "full",
                         quantization_spec=None, custom_qdq_cases=None, *,
                         weight_bits: int = 8, activation_bits: int = 8,
                         range_tracking: str = "last_value",
                         ema_decay: float = 0.999, calibration_data=None,
                         batch_size: int = 32):
    """A copy of `model` (Keras 3 or tf.keras) ready for quantization-aware
    training,
    with fake quantization where insert-qdq places Q/DQ for the given mode,
    spec and cases (see the module's docstring). The original model is
    left untouched; the copy starts from its weights, and from ranges
    calibrated on `calibration_data` when given (calibrate_ranges)."""
    from .keras_import import import_keras, is_keras_model, walk_graph
    from .quantize import _qat_placement

    if not is_keras_model(model):
        raise TypeError("quantization-aware training takes a keras.Model "
                        "(Keras 3 or tf.keras), got %s.%s"
                        % (type(model).__module__, type(model).__name__))
    k, fake_quantize_layer, quantize_weights_layer, _ = layers_for(model)
    module = import_keras(model)
    placement = _qat_placement(module, quantization_mode, quantization_spec,
                               custom_qdq_cases, weight_bits,
                               activation_bits)
    # One FakeQuantize per quantized tensor, made when first read.
    quantized = {}

    def fake_quantized(tensor, source_name):
        key = id(tensor)
        if key not in quantized:
            quantized[key] = fake_quantize_layer(
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
        runner = (quantize_weights_layer(clone, weight_bits)
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
        new = k.Input(batch_shape=tuple(tensor.shape), dtype=tensor.dtype,
                      name=layer.name)
        producers[id(new)] = layer.name
        inputs.append(new)
    outputs = walk_graph(model, inputs, visit)
    qat = k.Model(inputs if len(inputs) > 1 else inputs[0],
                  outputs if len(outputs) > 1 else outputs[0],
                  name=model.name + "_qat")
    if calibration_data is not None:
        calibrate_ranges(qat, calibration_data, batch_size)
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
