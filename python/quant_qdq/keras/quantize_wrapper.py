"""The layers of TFMOT's API: QuantizeAnnotate marks a layer,
QuantizeWrapper runs it quantized by its QuantizeConfig, QuantizeLayer
quantizes a model input. Keras 3 and tf.keras alike (defined once per
Keras, registered for loading saved models under package "quant_qdq").

QuantizeWrapper does per call what TFMOT's does: fake-quantize the weights
the config names with their quantizers, hand them to the config's
`set_quantize_weights`, hand activation functions that quantize to
`set_quantize_activations`, call the layer, quantize its outputs. What the
setters assign on the wrapped layer is seen by that call only: the layer's
class is swapped, for the call, for a subclass that keeps the assignments
aside and answers them first (`_ScopedAttributes`). So the variables stay
the layer's (and are what is saved and trained), and an assignment to a
read-only property (Keras 3's `Dense.kernel`) works as on tf.keras.
"""

import inspect
import threading

from .quantize_config import deserialize_config, serialize_config
from .quantizers import Quantizer, is_training, keras_of

__all__ = ["layers_of", "layers_for", "QuantizedActivation",
           "PRE_QUANTIZED_ACTIVATIONS"]

# Activations whose input is quantized as well as their output, as TFMOT
# does (their output range is fixed; their input's is what matters);
# every other activation is quantized after it is applied.
PRE_QUANTIZED_ACTIVATIONS = frozenset({"softmax", "sigmoid", "tanh", "gelu"})
# Activations quantized only before.
_ONLY_PRE = frozenset({"softmax", "sigmoid", "tanh"})


def _activation_name(activation):
    return getattr(activation, "__name__", type(activation).__name__)


def call_quantizer(quantizer, x, training, variables, step=None):
    """Calls `quantizer` as TFMOT 0.8 does (inputs, training, weights),
    also passing `step` to a quantizer whose `__call__` takes one, as the
    seed guide's does: the wrapper's `optimizer_step` variable, which, as
    in TFMOT, nothing advances (it stays -1)."""
    parameters = inspect.signature(quantizer.__call__).parameters
    kwargs = {"training": training, "weights": variables}
    if "step" in parameters:
        kwargs["step"] = step
    return quantizer(x, **kwargs)


class QuantizedActivation:
    """An activation function that fake-quantizes its output (and, for
    softmax, sigmoid, tanh and gelu, its input) with `quantizer`, whose
    variables live on the wrapper. The wrapper sets `training` before each
    call of the layer."""

    def __init__(self, activation, quantizer, wrapper, index):
        self.activation = activation
        self.quantizer = quantizer
        self.training = False
        self.step = None
        name = _activation_name(activation)
        self.pre_variables = self.post_variables = None
        if name in PRE_QUANTIZED_ACTIVATIONS:
            self.pre_variables = quantizer.build(
                None, "pre_activation%s" % _suffix(index), wrapper)
        if name not in _ONLY_PRE:
            self.post_variables = quantizer.build(
                None, "post_activation%s" % _suffix(index), wrapper)

    @property
    def __name__(self):
        return _activation_name(self.activation)

    def __call__(self, x, *args, **kwargs):
        if self.pre_variables is not None:
            x = call_quantizer(self.quantizer, x, self.training,
                               self.pre_variables, self.step)
        x = self.activation(x, *args, **kwargs)
        if self.post_variables is not None:
            x = call_quantizer(self.quantizer, x, self.training,
                               self.post_variables, self.step)
        return x


def _suffix(index):
    return "" if index == 0 else "_%d" % index


class _ScopedAttributes:
    """Mixed into a layer's class for the length of one wrapped call: while
    `capturing`, assignments go to `_qdq_scoped`; while it is set, reads
    of those names answer from it."""

    def __getattribute__(self, name):
        scoped = object.__getattribute__(self, "__dict__").get("_qdq_scoped")
        if scoped is not None and name in scoped:
            return scoped[name]
        return super().__getattribute__(name)

    def __setattr__(self, name, value):
        if self.__dict__.get("_qdq_capturing"):
            self.__dict__["_qdq_scoped"][name] = value
            return
        super().__setattr__(name, value)


_SCOPED_CLASSES = {}
# One scope at a time in the process: the class swap is per layer object,
# and Keras may trace a layer from several threads.
_SCOPE_LOCK = threading.RLock()


def _scoped_class(cls):
    """`cls` with _ScopedAttributes mixed in (made once per class)."""
    if cls not in _SCOPED_CLASSES:
        _SCOPED_CLASSES[cls] = type(cls.__name__, (_ScopedAttributes, cls),
                                    {"__module__": cls.__module__,
                                     "_qdq_base": cls})
    return _SCOPED_CLASSES[cls]


class scoped_attributes:
    """`with scoped_attributes(layer) as scope:` the assignments a setter
    makes inside `scope.capture(setter, ...)` are seen by `layer` until the
    block ends, and then forgotten. Scopes nest (an inner one sees the
    outer's assignments, and its own until it ends)."""

    def __init__(self, layer):
        self.layer = layer

    def __enter__(self):
        _SCOPE_LOCK.acquire()
        state = self.layer.__dict__
        self.saved = (type(self.layer), state.get("_qdq_scoped"),
                      state.get("_qdq_capturing"))
        base = getattr(type(self.layer), "_qdq_base", type(self.layer))
        state["_qdq_scoped"] = dict(self.saved[1] or {})
        state["_qdq_capturing"] = False
        self.layer.__class__ = _scoped_class(base)
        return self

    def capture(self, setter, *args):
        self.layer.__dict__["_qdq_capturing"] = True
        try:
            setter(*args)
        finally:
            self.layer.__dict__["_qdq_capturing"] = False

    def __exit__(self, *exc):
        cls, scoped, capturing = self.saved
        state = self.layer.__dict__
        try:
            self.layer.__class__ = cls
            for key, value in (("_qdq_scoped", scoped),
                               ("_qdq_capturing", capturing)):
                if value is None:
                    state.pop(key, None)
                else:
                    state[key] = value
        finally:
            _SCOPE_LOCK.release()
        return False


class _Quantizers:
    """What a QuantizeWrapper quantizes, held where Keras's attribute
    tracking does not look (it would count the wrapped layer's variables,
    listed here, twice)."""

    def __init__(self):
        self.weights = []      # (variable, quantizer, its variables)
        self.activations = []  # QuantizedActivation
        self.outputs = []      # (quantizer, its variables)


def _define_layers(k):
    """QuantizeAnnotate, QuantizeWrapper and QuantizeLayer for the Keras
    `k` (keras or tf_keras), registered for its serialization."""
    register = k.saving.register_keras_serializable(package="quant_qdq")
    legacy = k.__name__ == "tf_keras"

    def lookup(name):
        return k.saving.get_registered_object(name) or \
            k.utils.get_custom_objects().get(name)

    def add_weight_any_style(base, args, kwargs):
        """add_weight also called as TFMOT's quantizers call it, the name
        first (tf.keras's order; Keras 3 takes the name by keyword only)."""
        if args and isinstance(args[0], str):
            kwargs.setdefault("name", args[0])
            args = args[1:]
        if not legacy and args:
            raise TypeError("add_weight: pass shape and initializer by "
                            "keyword")
        return base(*args, **kwargs)

    class ConfiguredWrapper(k.layers.Wrapper):
        """A wrapper of a layer and its QuantizeConfig, saved together."""

        def get_config(self):
            config = super().get_config()
            config["quantize_config"] = serialize_config(self.quantize_config)
            return config

        @classmethod
        def from_config(cls, config):
            config = dict(config)
            config["quantize_config"] = deserialize_config(
                config.get("quantize_config"), lookup)
            config["layer"] = k.layers.deserialize(config["layer"])
            return cls(**config)

    @register
    class QuantizeAnnotate(ConfiguredWrapper):
        """Marks `layer` for quantize_apply, with the QuantizeConfig to
        quantize it by (None: the default for its class). Runs the layer
        unchanged."""

        def __init__(self, layer, quantize_config=None, **kwargs):
            kwargs.setdefault("name", "quant_annotate_" + layer.name)
            super().__init__(layer, **kwargs)
            self.quantize_config = quantize_config

        def build(self, input_shape=None):
            if not self.layer.built:
                self.layer.build(input_shape)
            self.built = True

        def call(self, inputs, training=None, **kwargs):
            if "training" in inspect.signature(self.layer.call).parameters:
                kwargs["training"] = training
            return self.layer(inputs, **kwargs)

    @register
    class QuantizeWrapper(ConfiguredWrapper):
        """`layer` quantized as `quantize_config` says (see the module's
        docstring)."""

        def __init__(self, layer, quantize_config, **kwargs):
            if quantize_config is None:
                raise ValueError("QuantizeWrapper of '%s' needs a "
                                 "QuantizeConfig" % layer.name)
            kwargs.setdefault("name", "quant_" + layer.name)
            super().__init__(layer, **kwargs)
            self.quantize_config = quantize_config

        def add_weight(self, *args, **kwargs):
            return add_weight_any_style(super().add_weight, args,
                                        kwargs)

        def build(self, input_shape=None):
            if not self.layer.built:
                self.layer.build(input_shape)
            self.optimizer_step = self.add_weight(
                name="optimizer_step", shape=(), dtype="int32",
                trainable=False, initializer=k.initializers.Constant(-1))
            config = self.quantize_config
            self.quantizers = _Quantizers()
            for weight, quantizer in config.get_weights_and_quantizers(
                    self.layer):
                _check_quantizer(quantizer, self.layer)
                name = weight.name.split("/")[-1].split(":")[0]
                variables = quantizer.build(tuple(weight.shape), name, self)
                self.quantizers.weights.append((weight, quantizer, variables))
            for i, (activation, quantizer) in enumerate(
                    config.get_activations_and_quantizers(self.layer)):
                _check_quantizer(quantizer, self.layer)
                self.quantizers.activations.append(
                    QuantizedActivation(activation, quantizer, self, i))
            for i, quantizer in enumerate(
                    config.get_output_quantizers(self.layer)):
                _check_quantizer(quantizer, self.layer)
                shape = (self._output_shape(input_shape, i)
                         if getattr(quantizer, "per_axis", False) else None)
                self.quantizers.outputs.append((quantizer, quantizer.build(
                    shape, "output%s" % _suffix(i), self)))
            self.built = True

        def _output_shape(self, input_shape, index):
            """The shape of output `index` where the layer can say it
            (a per-axis output quantizer needs its last dimension)."""
            try:
                shapes = self.layer.compute_output_shape(input_shape)
            except NotImplementedError:
                return None
            if isinstance(shapes, list):
                shapes = shapes[min(index, len(shapes) - 1)]
            return None if shapes is None else tuple(shapes)

        def call(self, inputs, training=None):
            layer, config = self.layer, self.quantize_config
            training = is_training(training)
            quantized = [call_quantizer(q, w, training, v,
                                        self.optimizer_step)
                         for w, q, v in self.quantizers.weights]
            activations = self.quantizers.activations
            for activation in activations:
                activation.training = training
                activation.step = self.optimizer_step
            with scoped_attributes(layer) as scope:
                if quantized:
                    scope.capture(config.set_quantize_weights, layer,
                                  quantized)
                if activations:
                    scope.capture(config.set_quantize_activations, layer,
                                  list(activations))
                kwargs = {}
                if "training" in inspect.signature(layer.call).parameters:
                    kwargs["training"] = training
                outputs = layer.call(inputs, **kwargs)
            if not self.quantizers.outputs:
                return outputs
            several = isinstance(outputs, (list, tuple))
            values = list(outputs) if several else [outputs]
            for i, (quantizer, variables) in enumerate(
                    self.quantizers.outputs[:len(values)]):
                values[i] = call_quantizer(quantizer, values[i], training,
                                           variables, self.optimizer_step)
            return values if several else values[0]

    @register
    class QuantizeLayer(k.layers.Layer):
        """Fake-quantizes a tensor (a model input) with `quantizer`."""

        def __init__(self, quantizer, **kwargs):
            super().__init__(**kwargs)
            if not isinstance(quantizer, Quantizer):
                raise ValueError("QuantizeLayer takes a quant_qdq.keras."
                                 "quantizers.Quantizer, got %r" % quantizer)
            self.quantizer = quantizer

        def add_weight(self, *args, **kwargs):
            return add_weight_any_style(super().add_weight, args,
                                        kwargs)

        def build(self, input_shape=None):
            self.quantizer_variables = self.quantizer.build(
                input_shape, self.name, self)
            self.built = True

        def call(self, inputs, training=None):
            return call_quantizer(self.quantizer, inputs,
                                  is_training(training),
                                  self.quantizer_variables)

        def compute_output_shape(self, input_shape):
            return input_shape

        def get_config(self):
            config = super().get_config()
            config["quantizer"] = {"class_name": type(self.quantizer).__name__,
                                   "config": self.quantizer.get_config()}
            return config

        @classmethod
        def from_config(cls, config):
            from . import quantizers
            config = dict(config)
            entry = config.pop("quantizer")
            name = entry["class_name"]
            qclass = getattr(quantizers, name, None) or lookup(name)
            if qclass is None:
                raise ValueError("unknown quantizer '%s': load the model "
                                 "inside quantize_scope" % name)
            return cls(qclass.from_config(entry["config"]), **config)

    return QuantizeAnnotate, QuantizeWrapper, QuantizeLayer


def _check_quantizer(quantizer, layer):
    if not isinstance(quantizer, Quantizer):
        raise ValueError(
            "layer '%s': a QuantizeConfig gave %r where a quant_qdq.keras."
            "quantizers.Quantizer was expected" % (layer.name, quantizer))


_LAYERS = {}


def layers_of(k):
    """(QuantizeAnnotate, QuantizeWrapper, QuantizeLayer) of the Keras
    module `k` (keras or tf_keras), defined on first use."""
    name = k.__name__
    if name not in _LAYERS:
        _LAYERS[name] = _define_layers(k)
    return _LAYERS[name]


def layers_for(layer):
    """layers_of the Keras `layer` belongs to."""
    return layers_of(keras_of(layer))
