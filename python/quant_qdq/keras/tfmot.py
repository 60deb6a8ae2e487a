"""TFMOT's quantization API over Keras 3 and tf.keras models:

    import quant_qdq.keras as qk          # for tfmot.quantization.keras
    model = qk.quantize_annotate_model(keras.Sequential([
        qk.quantize_annotate_layer(Conv2D(...), MyConvConfig()), ...]))
    qat = qk.quantize_apply(model)        # or qk.quantize_model(model)
    qat.compile(...); qat.fit(...)
    qk.export_qat_model(qat, output="model.qdq.onnx")

Placement is TFMOT's, not insert-qdq's: layers' outputs (after their
activation) and the model inputs are quantized, by each layer's
QuantizeConfig (default_scheme.py), where the NVIDIA toolkit quantizes
the inputs of quantizable layers (docs/Keras.md says where they differ).
Unlike TFMOT, a layer the default scheme does not know is left in float
with a warning rather than refusing the model, and a model's weights are
copied, never shared with the annotated model.
"""

import contextlib
import importlib
import sys
import warnings
from typing import NamedTuple

from .default_scheme import default_config, fuse
from .graph_walk import fresh_inputs, walk_graph
from .models import is_keras_model
from .quantize_config import QuantizeConfig
from .quantize_wrapper import layers_for, layers_of
from .quantizers import AllValuesQuantizer, keras_of

__all__ = ["quantize_annotate_layer", "quantize_annotate_model",
           "quantize_apply", "quantize_model", "quantize_scope"]


def _check_model(model, what):
    if not is_keras_model(model):
        raise ValueError("%s takes a keras.Model (Keras 3 or tf.keras), got "
                         "%s.%s" % (what, type(model).__module__,
                                    type(model).__name__))


def _is_annotation(layer):
    return type(layer).__name__ == "QuantizeAnnotate" and \
        type(layer).__module__.startswith("quant_qdq")


def quantize_annotate_layer(to_annotate, quantize_config=None):
    """`to_annotate` (a Keras layer) marked to be quantized by
    quantize_apply, by `quantize_config` (default: its class's in the
    default scheme)."""
    if to_annotate is None:
        raise ValueError("quantize_annotate_layer: `to_annotate` is None")
    k = keras_of(to_annotate)
    if not isinstance(to_annotate, k.layers.Layer) or is_keras_model(
            to_annotate):
        raise ValueError("quantize_annotate_layer takes a Keras layer, got "
                         "%r" % (to_annotate,))
    if quantize_config is not None and not isinstance(quantize_config,
                                                      QuantizeConfig):
        raise ValueError("quantize_config must be a quant_qdq.keras."
                         "QuantizeConfig, got %r" % (quantize_config,))
    annotate, _, _ = layers_of(k)
    return annotate(to_annotate, quantize_config)


def _rebuild(model, visit, bind=lambda index, tensor: tensor):
    """A new model of `model`'s graph, each layer call replaced by what
    `visit(layer, inputs)` returns, on new Input tensors of the same shapes
    and names, each read through `bind(its index, it)`."""
    k = keras_of(model)
    inputs = fresh_inputs(model, k)
    bound = [bind(i, tensor) for i, tensor in enumerate(inputs)]
    outputs = walk_graph(model, bound,
                         lambda layer, node, args: visit(layer, args))
    return k.Model(inputs if len(inputs) > 1 else inputs[0],
                   outputs if len(outputs) > 1 else outputs[0],
                   name=model.name)


def _outputs(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _call(layer, args):
    return _outputs(layer(args if len(args) > 1 else args[0]))


def quantize_annotate_model(to_annotate):
    """A model of the same layers (shared, not copied) with every layer
    not yet annotated marked for quantize_apply by its default config."""
    _check_model(to_annotate, "quantize_annotate_model")
    annotate, _, _ = layers_for(to_annotate)
    annotated = {}

    def visit(layer, args):
        if not _is_annotation(layer):
            if id(layer) not in annotated:
                annotated[id(layer)] = annotate(layer)
            layer = annotated[id(layer)]
        return _call(layer, args)

    return _rebuild(to_annotate, visit)


def _clone(layer):
    """A new layer of `layer`'s configuration (weights copied once built)."""
    try:
        return layer.__class__.from_config(layer.get_config())
    except Exception as error:
        raise ValueError(
            "layer '%s' (%s) cannot be rebuilt from its get_config(): %s: %s "
            "(a custom layer needs a get_config giving its __init__ "
            "arguments)" % (layer.name, type(layer).__name__,
                            type(error).__name__, error)) from error


class _LayerCall(NamedTuple):
    layer: object           # the layer, seen through its annotation
    producers: list         # the layers it reads
    annotation: object      # its QuantizeAnnotate, or None
    model_inputs: list      # indices of the model inputs it reads


def _layer_calls(model):
    """The _LayerCall of each layer call of `model`, in graph order."""
    calls = []

    def visit(layer, node, args):
        annotation = layer if _is_annotation(layer) else None
        inner = layer.layer if annotation is not None else layer
        calls.append(_LayerCall(
            inner, [a for a in args if not isinstance(a, int)], annotation,
            [a for a in args if isinstance(a, int)]))
        return [inner] * len(_outputs(node.output_tensors))

    # Model inputs are bound to their indices, layers' outputs to layers.
    walk_graph(model, list(range(len(model.inputs))), visit)
    return calls


def _configs(calls):
    """({layer id: QuantizeConfig}, ids on the default config, ids
    annotated) for the annotated layers of `calls`, fusions applied; warns
    once about annotated layers no config covers."""
    configs, defaulted, annotated, unknown = {}, set(), set(), []
    for layer, _, annotation, _ in calls:
        if annotation is None or id(layer) in annotated:
            continue
        annotated.add(id(layer))
        config = annotation.quantize_config
        if config is None:
            config = default_config(layer)
            if config is None:
                # A batch norm may join a fusion below.
                unknown.append(layer)
                continue
            defaulted.add(id(layer))
        configs[id(layer)] = config
    fuse([(call.layer, call.producers) for call in calls], configs,
         defaulted, annotated)
    unknown = ["%s (%s)" % (layer.name, type(layer).__name__)
               for layer in unknown if id(layer) not in configs]
    if unknown:
        warnings.warn(
            "quantize_apply: no default QuantizeConfig for %s; left in float "
            "(annotate them with a QuantizeConfig to quantize them)"
            % ", ".join(unknown), stacklevel=3)
    return configs


def _check_scheme(scheme):
    """TFMOT's default 8-bit scheme is the one there is; naming it (as
    TFMOT code may) is accepted."""
    if scheme is not None and type(scheme).__name__ != \
            "Default8BitQuantizeScheme":
        raise ValueError(
            "quantize_apply: scheme %s is not supported; quant_qdq.keras has "
            "TFMOT's default 8-bit scheme (give QuantizeConfigs for others)"
            % type(scheme).__name__)


def quantize_apply(model, scheme=None, quantized_layer_name_prefix="quant_"):
    """A copy of the annotated `model` ready for quantization-aware
    training: each annotated layer a QuantizeWrapper of its config (named
    `quantized_layer_name_prefix` + its name), a QuantizeLayer on each
    model input an annotated layer reads, the other layers in float;
    weights copied from `model`. `scheme`: None or TFMOT's
    Default8BitQuantizeScheme, the same."""
    _check_model(model, "quantize_apply")
    _check_scheme(scheme)
    calls = _layer_calls(model)
    if not any(call.annotation is not None for call in calls):
        raise ValueError(
            "quantize_apply: model '%s' has no annotated layer: annotate "
            "with quantize_annotate_layer/quantize_annotate_model, or call "
            "quantize_model" % model.name)
    configs = _configs(calls)
    _, wrapper, quantize_layer = layers_for(model)
    # One copy per layer, so that a layer called twice stays shared.
    clones = {}

    def visit(layer, args):
        inner = layer.layer if _is_annotation(layer) else layer
        first_call = id(inner) not in clones
        if first_call:
            clone = _clone(inner)
            config = configs.get(id(inner))
            clones[id(inner)] = (clone, clone if config is None
                                 else wrapper(clone, config, name=(
                                     quantized_layer_name_prefix +
                                     clone.name)))
        clone, runner = clones[id(inner)]
        outputs = _call(runner, args)
        if first_call:  # built now: its weights can be set
            clone.set_weights(inner.get_weights())
        return outputs

    # TFMOT quantizes a model input that an annotated layer reads.
    quantized = {i for call in calls if id(call.layer) in configs
                 for i in call.model_inputs}

    def bind(index, tensor):
        """A model input a quantized layer reads, through a QuantizeLayer
        (TFMOT's: 8-bit asymmetric, the range of every value seen)."""
        if index not in quantized:
            return tensor
        return quantize_layer(
            AllValuesQuantizer(8, False, False, False),
            name="quantize_layer" + ("" if index == 0 else "_%d" % index))(
                tensor)

    return _rebuild(model, visit, bind)


def quantize_model(to_quantize, quantized_layer_name_prefix="quant_"):
    """quantize_apply(quantize_annotate_model(to_quantize)): every layer
    quantized by its default config."""
    _check_model(to_quantize, "quantize_model")
    if any(_is_annotation(layer) for layer in to_quantize.layers):
        raise ValueError("quantize_model: '%s' is already annotated; call "
                         "quantize_apply" % to_quantize.name)
    return quantize_apply(
        quantize_annotate_model(to_quantize),
        quantized_layer_name_prefix=quantized_layer_name_prefix)


@contextlib.contextmanager
def quantize_scope(*args):
    """A scope inside which Keras loads models holding this API's layers,
    configs and quantizers, and the user's ones given as dicts
    ({name: class})."""
    objects = {}
    for arg in args:
        objects.update(arg)
    from . import quantizers
    from .quantize_config import config_classes
    objects.update(config_classes())
    objects.update({name: getattr(quantizers, name) for name in (
        "LastValueQuantizer", "MovingAverageQuantizer",
        "AllValuesQuantizer")})
    with contextlib.ExitStack() as stack:
        for name in ("keras", "tf_keras"):
            # Both, whether loaded yet or not: a SavedModel folder loads
            # with tf.keras, which may be imported only inside the scope.
            try:
                k = sys.modules.get(name) or importlib.import_module(name)
            except ImportError:
                continue
            for cls in layers_of(k):
                objects[cls.__name__] = cls
            stack.enter_context(k.saving.custom_object_scope(dict(objects)))
        yield
