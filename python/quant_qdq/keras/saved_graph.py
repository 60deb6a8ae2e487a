"""SavedModels that hold a TensorFlow graph and no Keras model: what Keras
3's `model.export(path)` writes (and `tf.saved_model.save` of a
tf.Module). Keras cannot load them back as layers; their serving function
is converted to ONNX by tf2onnx and imported as any ONNX model, so its
ops are named as TensorFlow named them.
"""

import warnings

from .. import _quant_qdq
from .._quant_qdq import Module, QuantQDQWarning
from .models import KerasImportError

__all__ = ["is_graph_saved_model", "import_saved_graph"]

# The opset tf2onnx writes: the newest every project tool reads back.
_OPSET = 17


def is_graph_saved_model(loaded) -> bool:
    """Whether what Keras loaded from a SavedModel folder is a bare
    TensorFlow object with a serving signature rather than a model."""
    return hasattr(loaded, "signatures") and not hasattr(loaded, "layers")


def _serving(loaded, path):
    """(the function to convert, its input names and TensorSpecs): the
    serving signature, a concrete function taking its inputs by name,
    wrapped as a tf.function taking them in order, as tf2onnx calls it."""
    import tensorflow as tf
    signatures = dict(loaded.signatures)
    concrete = signatures.get("serving_default") or signatures.get("serve")
    if concrete is None and len(signatures) == 1:
        concrete = next(iter(signatures.values()))
    if concrete is None:
        raise KerasImportError(
            "%s: a TensorFlow SavedModel without a Keras model and with %s; "
            "quant-qdq reads one serving signature ('serving_default')"
            % (path, "signatures %s" % ", ".join(sorted(signatures))
               if signatures else "no signature"))
    _, inputs = concrete.structured_input_signature
    # In the signature's own order where it says it (sorted is only as
    # good as the names: input_10 before input_2).
    names = [n for n in getattr(concrete, "_arg_keywords", None) or []
             if n in inputs] or sorted(inputs)

    def by_position(*args):
        return concrete(**dict(zip(names, args)))

    return tf.function(by_position), names, [inputs[n] for n in names]


def import_saved_graph(loaded, path: str, batch_size=None) -> Module:
    """The serving function of `loaded` (what Keras loaded from the
    SavedModel at `path`) as ONNX layer ops, its batch dimension fixed to
    `batch_size` when given."""
    import tensorflow as tf
    import tf2onnx
    function, names, inputs = _serving(loaded, path)
    specs = []
    for name, spec in zip(names, inputs):
        shape = list(spec.shape)
        if batch_size is not None and shape and shape[0] is None:
            shape[0] = batch_size
        specs.append(tf.TensorSpec(shape, spec.dtype, name=name))
    try:
        proto, _ = tf2onnx.convert.from_function(
            function, input_signature=specs, opset=_OPSET)
    except Exception as error:  # tf2onnx raises many kinds
        raise KerasImportError(
            "%s: tf2onnx cannot convert its serving function: %s: %s"
            % (path, type(error).__name__, error)) from error
    warnings.warn(
        "%s holds a TensorFlow graph, not a Keras model (Keras 3's "
        "model.export writes those): converted to ONNX by tf2onnx, so "
        "layers are named as TensorFlow named its ops" % path,
        QuantQDQWarning, stacklevel=3)
    return _quant_qdq.import_onnx(proto.SerializeToString(), path)
