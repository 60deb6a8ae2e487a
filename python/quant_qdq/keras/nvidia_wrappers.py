"""NVIDIA's wrapper classes: BaseQuantizeWrapper,
WeightedBaseQuantizeWrapper and NonWeightedBaseQuantizeWrapper, Keras 3
layers (`quant_qdq.BaseQuantizeWrapper` ...).

As in NVIDIA's toolkit, a subclass named `<KerasClass>QuantizeWrapper`
gives that Keras class its default behaviour (seeds' "Add New Layer
Support"): inputs quantized, and, for a weighted one, its kernel
(`kernel_type`, the attribute that holds it). Here the class registers
that row when it is defined (the toolkit's registration needs an
instance; making one does no harm) in layer_defaults, which insert-qdq's
placement, its report and quantization-aware training follow, for layers
the importer knows and for those it keeps generic. Class attributes
`quantize_input`, `quantize_weight` and `quantization_index` refine it.
`<KerasClass>` may be one of Keras's aliases (`GlobalMaxPool2D` names
GlobalMaxPooling2D).

Used as layers, the wrappers run their layer with its inputs (and
kernel) fake-quantized as the toolkit's do: symmetric 8-bit narrow range,
inputs by the last batch's max |x| (kept in `amax` variables), kernels per
output channel.
"""

import keras

from ..layer_defaults import DefaultRow, register_default_row
from .qat_layers import KERNEL_RANGE_AXES, fake_quantize
from .quantize_wrapper import scoped_attributes

__all__ = ["BaseQuantizeWrapper", "WeightedBaseQuantizeWrapper",
           "NonWeightedBaseQuantizeWrapper"]

_SUFFIX = "QuantizeWrapper"
_BASES = ("BaseQuantizeWrapper", "WeightedBaseQuantizeWrapper",
          "NonWeightedBaseQuantizeWrapper")


def _keras_class(prefix: str) -> str:
    """The Keras class a wrapper's name prefix names, through Keras's
    aliases; a name Keras does not know (a custom or generic layer) as is."""
    cls = getattr(keras.layers, prefix, None)
    return cls.__name__ if isinstance(cls, type) else prefix


@keras.saving.register_keras_serializable(package="quant_qdq")
class BaseQuantizeWrapper(keras.layers.Wrapper):
    """Runs `layer` with its inputs fake-quantized (those of
    `quantization_index`, all when None)."""

    quantize_input = True
    quantize_weight = False
    quantization_index = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        name = cls.__name__
        if name in _BASES or not name.endswith(_SUFFIX) or \
                name == _SUFFIX:
            return
        register_default_row(DefaultRow(
            _keras_class(name[:-len(_SUFFIX)]), bool(cls.quantize_input),
            bool(cls.quantize_weight),
            None if cls.quantization_index is None else
            [int(i) for i in cls.quantization_index], name))

    def __init__(self, layer, **kwargs):
        kwargs.setdefault("name", "quant_" + layer.name)
        super().__init__(layer, **kwargs)

    def build(self, input_shape=None):
        if not self.layer.built:
            self.layer.build(input_shape)
        count = len(input_shape) if isinstance(input_shape, list) else 1
        self.input_amax = [self.add_weight(
            name="input_amax_%d" % i, shape=(), trainable=False,
            initializer=keras.initializers.Constant(6.0))
            for i in range(count)]
        self.built = True

    def quantized_positions(self, count):
        """The inputs to quantize, as a QuantizationSpec entry says:
        `quantization_index` when given, else all or none by
        `quantize_input`."""
        if self.quantization_index is not None:
            return [i for i in self.quantization_index if i < count]
        return list(range(count)) if self.quantize_input else []

    def quantize_inputs(self, inputs, training):
        several = isinstance(inputs, (list, tuple))
        values = list(inputs) if several else [inputs]
        for i in self.quantized_positions(len(values)):
            amax = self.input_amax[i]
            if training:
                batch = keras.ops.max(keras.ops.abs(
                    keras.ops.stop_gradient(values[i])))
                amax.assign(batch)
                amax = batch
            values[i] = fake_quantize(values[i], amax)
        return values if several else values[0]

    def call_layer(self, inputs, training):
        return self.layer(inputs)

    def call(self, inputs, training=None):
        return self.call_layer(self.quantize_inputs(inputs, bool(training)),
                               bool(training))


@keras.saving.register_keras_serializable(package="quant_qdq")
class NonWeightedBaseQuantizeWrapper(BaseQuantizeWrapper):
    """A layer without weights: its inputs fake-quantized."""


@keras.saving.register_keras_serializable(package="quant_qdq")
class WeightedBaseQuantizeWrapper(BaseQuantizeWrapper):
    """A layer with a kernel (the attribute `kernel_type`), fake-quantized
    per output channel as well as its inputs (unless the class says
    `quantize_weight = False`). The output channels are those of the
    layer's class where the project knows it (a depthwise kernel's are its
    channels times multiplier), else the kernel's last axis."""

    quantize_weight = True

    def __init__(self, layer, kernel_type="kernel", **kwargs):
        super().__init__(layer, **kwargs)
        self.kernel_type = kernel_type

    def call_layer(self, inputs, training):
        layer = self.layer
        if not self.quantize_weight:
            return layer(inputs)
        kernel = getattr(layer, self.kernel_type)
        axes = KERNEL_RANGE_AXES.get(type(layer).__name__,
                                     tuple(range(len(kernel.shape) - 1)))
        amax = keras.ops.max(keras.ops.abs(keras.ops.stop_gradient(kernel)),
                             axis=axes, keepdims=True)
        with scoped_attributes(layer) as scope:
            scope.capture(setattr, layer, self.kernel_type,
                          fake_quantize(kernel, amax))
            return layer.call(inputs)

    def get_config(self):
        config = super().get_config()
        config["kernel_type"] = self.kernel_type
        return config
