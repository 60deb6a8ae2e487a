"""TFMOT's QuantizeConfig: what of a layer is quantized, and how.

A QuantizeConfig names a layer's weights and activations with their
quantizers (`get_weights_and_quantizers`, `get_activations_and_quantizers`),
puts the quantized ones in place (`set_quantize_weights`,
`set_quantize_activations`), gives the quantizers of the layer's outputs
(`get_output_quantizers`) and serializes itself (`get_config`). The
QuantizeWrapper calls the setters on every call, and whatever they assign
on the layer holds for that call only (quantize_wrapper.py), so
`layer.kernel = quantized[0]` works on Keras 3's read-only `kernel` too.

Beyond TFMOT: the two setters and get_config have defaults (each quantized
value is put where the layer held the original, found by identity), so a
config that only says what to quantize, as the seed guide's do, runs.

DefaultQuantizeConfig is TFMOT's default 8-bit scheme for one layer class:
weights by attribute name (symmetric, narrow, per tensor or per output
channel), activation attributes and outputs by a moving average of
asymmetric 8-bit ranges.
"""

from .quantizers import LastValueQuantizer, MovingAverageQuantizer

__all__ = ["QuantizeConfig", "NoOpQuantizeConfig", "DefaultQuantizeConfig",
           "ActivationQuantizeConfig", "config_classes", "serialize_config",
           "deserialize_config"]


def _attribute_holding(layer, value):
    """The name of `layer`'s instance attribute whose value is `value`."""
    for name, held in vars(layer).items():
        if held is value:
            return name
    raise ValueError(
        "layer '%s' (%s) holds no attribute with %r: write the config's "
        "set_quantize_weights/set_quantize_activations"
        % (layer.name, type(layer).__name__, value))


class QuantizeConfig:
    """How one layer is quantized (see the module's docstring). Subclass it
    and return (weight, quantizer) and (activation, quantizer) pairs and
    output quantizers."""

    def get_weights_and_quantizers(self, layer):
        """[(weight variable, Quantizer)] to quantize."""
        return []

    def get_activations_and_quantizers(self, layer):
        """[(activation function, Quantizer)] whose outputs to quantize."""
        return []

    def set_quantize_weights(self, layer, quantize_weights):
        """Puts the quantized weights in place of the originals."""
        originals = [w for w, _ in self.get_weights_and_quantizers(layer)]
        self._put_in_place(layer, originals, quantize_weights, "weights")

    def set_quantize_activations(self, layer, quantize_activations):
        """Puts the quantizing activations in place of the originals."""
        originals = [a for a, _ in
                     self.get_activations_and_quantizers(layer)]
        self._put_in_place(layer, originals, quantize_activations,
                           "activations")

    def get_output_quantizers(self, layer):
        """[Quantizer] for the layer's outputs (one per output)."""
        return []

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def _put_in_place(self, layer, originals, replacements, what):
        if len(originals) != len(replacements):
            raise ValueError("%s: %d %s to set, %d given" % (
                type(self).__name__, len(originals), what, len(replacements)))
        for original, replacement in zip(originals, replacements):
            setattr(layer, _attribute_holding(layer, original), replacement)

    def __eq__(self, other):
        return type(self) is type(other) and \
            self.get_config() == other.get_config()

    def __hash__(self):
        return hash(type(self))


class NoOpQuantizeConfig(QuantizeConfig):
    """Leaves the layer in float (it is annotated, so quantize_apply keeps
    it, but nothing of it is quantized)."""

    def set_quantize_weights(self, layer, quantize_weights):
        pass

    def set_quantize_activations(self, layer, quantize_activations):
        pass


class DefaultQuantizeConfig(QuantizeConfig):
    """TFMOT's default 8-bit scheme for a layer: the weights named by
    `weight_attrs` through LastValueQuantizer (8-bit, symmetric, narrow;
    per output channel with `per_axis`), the activation functions named by
    `activation_attrs` and, with `quantize_output`, the output through
    MovingAverageQuantizer (8-bit asymmetric)."""

    def __init__(self, weight_attrs=(), activation_attrs=(),
                 quantize_output=False, per_axis=False):
        self.weight_attrs = list(weight_attrs)
        self.activation_attrs = list(activation_attrs)
        self.quantize_output = bool(quantize_output)
        self.per_axis = bool(per_axis)

    def without_output_quantization(self):
        """The same weights, with neither activations nor outputs quantized
        (the layer's output is quantized after what follows it)."""
        return DefaultQuantizeConfig(self.weight_attrs, [], False,
                                     self.per_axis)

    def with_output_quantization(self):
        return DefaultQuantizeConfig(self.weight_attrs, self.activation_attrs,
                                     True, self.per_axis)

    def get_weights_and_quantizers(self, layer):
        return [(getattr(layer, attr),
                 LastValueQuantizer(8, self.per_axis, True, True))
                for attr in self.weight_attrs]

    def get_activations_and_quantizers(self, layer):
        return [(getattr(layer, attr), MovingAverageQuantizer())
                for attr in self.activation_attrs]

    def set_quantize_weights(self, layer, quantize_weights):
        for attr, weight in zip(self.weight_attrs, quantize_weights):
            setattr(layer, attr, weight)

    def set_quantize_activations(self, layer, quantize_activations):
        for attr, activation in zip(self.activation_attrs,
                                    quantize_activations):
            setattr(layer, attr, activation)

    def get_output_quantizers(self, layer):
        return [MovingAverageQuantizer()] if self.quantize_output else []

    def get_config(self):
        return {"weight_attrs": self.weight_attrs,
                "activation_attrs": self.activation_attrs,
                "quantize_output": self.quantize_output,
                "per_axis": self.per_axis}


class ActivationQuantizeConfig(QuantizeConfig):
    """TFMOT's config of an Activation layer: its output quantized when the
    function is relu, relu6, swish or gelu; nothing for linear, softmax,
    sigmoid and tanh, whose range is bounded or their input's."""

    QUANTIZED = ("relu", "relu6", "swish", "silu", "gelu")

    def __init__(self, quantize_output=True):
        self.quantize_output = bool(quantize_output)

    def without_output_quantization(self):
        return ActivationQuantizeConfig(False)

    def get_output_quantizers(self, layer):
        name = getattr(layer.activation, "__name__", None)
        if self.quantize_output and name in self.QUANTIZED:
            return [MovingAverageQuantizer()]
        return []

    def get_config(self):
        return {"quantize_output": self.quantize_output}


def config_classes():
    """The package's own configs, by class name."""
    return {c.__name__: c for c in (QuantizeConfig, NoOpQuantizeConfig,
                                    DefaultQuantizeConfig,
                                    ActivationQuantizeConfig)}


def serialize_config(config):
    if config is None:
        return None
    return {"class_name": type(config).__name__,
            "config": config.get_config()}


def deserialize_config(entry, lookup):
    """The config `serialize_config` wrote; user classes are found by
    `lookup(class name)` (the Keras custom objects: quantize_scope)."""
    if entry is None:
        return None
    name = entry["class_name"]
    cls = config_classes().get(name) or lookup(name)
    if cls is None:
        raise ValueError(
            "unknown QuantizeConfig '%s': load the model inside "
            "quant_qdq.keras.quantize_scope({'%s': %s})" % (name, name, name))
    return cls.from_config(entry["config"])
