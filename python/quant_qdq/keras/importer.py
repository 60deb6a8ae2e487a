"""Keras models in: a keras.Model as quant_qdq layer ops.

    from quant_qdq.keras import import_keras
    module = import_keras(keras.applications.ResNet50(weights=None))

The translation walks the model's layer graph (Functional and Sequential
models of Keras 3 or tf.keras; nested models are flattened) and emits one
layer op per Keras layer under the layer's own name, with the Keras class
where it differs from the op's (`quant_qdq.layer_class`), so that a
QuantizationSpec written for NVIDIA's toolkit applies unchanged.

Images run channel-first, as ONNX and TensorRT want them: kernels are
transposed once at import and 4-D tensors stay NCHW between the layers that
do not care, with a transpose only where the Keras layout is needed (model
inputs and outputs, Flatten, Reshape, Dense, unknown layers). A layer the
translation does not know stays in float as a `quant_qdq.generic` op of its
class, with a warning.
"""

import os
import warnings
from typing import Optional

from .. import _quant_qdq
from .._quant_qdq import Module, QuantQDQWarning
from .graph_walk import graph_outputs, history, walk_graph
from .layer_translator import LayerTranslator
from .mlir_text import Value, mlir_string
from .models import is_keras_model, keras_flavour, load_keras_model
from .saved_graph import import_saved_graph, is_graph_saved_model

__all__ = ["import_keras"]


def import_keras(model, *, batch_size: Optional[int] = None,
                 source: Optional[str] = None) -> Module:
    """Imports a Keras model (a keras.Model of Keras 3 or tf.keras, or a
    .keras/.h5 file or SavedModel folder) into a Module of quant_qdq layer
    ops. `batch_size` fixes the batch dimension (None keeps it dynamic).
    Layers without an equivalent stay in float as generic ops, with a
    QuantQDQWarning naming them."""
    if isinstance(model, (str, os.PathLike)):
        source = source or os.fspath(model)
        model = load_keras_model(model)
    if source is not None and is_graph_saved_model(model):
        return import_saved_graph(model, source, batch_size)
    if not is_keras_model(model):
        raise TypeError("expected a keras.Model or a Keras file, got %s"
                        % type(model).__name__)
    # Diagnostics name the file, or say that the model was a live one.
    t = LayerTranslator(source or "%s (keras.Model)" % model.name,
                        batch_size, keras_flavour(model))
    graph_outputs(model)
    args = []
    arg_texts = []
    for i, tensor in enumerate(model.inputs):
        op, _, _ = history(tensor)
        value = Value("%%arg%d" % i, t.shape_of(tensor), origin=op.name)
        args.append(value)
        arg_texts.append("%s: %s {quant_qdq.onnx.name = %s} %s" % (
            value.ssa, value.type, mlir_string(op.name), t.loc(op.name)))
    outputs = walk_graph(model, args, t.visit)
    outputs = [t.keras_layout(v) for v in outputs]
    result_texts = []
    for tensor, value in zip(model.outputs, outputs):
        op, _, _ = history(tensor)
        result_texts.append("%s {quant_qdq.onnx.name = %s}"
                            % (value.type, mlir_string(op.name)))
    if t.unknown:
        warnings.warn(
            "Keras import of '%s': no quant_qdq equivalent for %s; those "
            "layers stay in float (generic ops of domain 'keras'), and ONNX "
            "export and execution cannot run them" % (
                model.name, "; ".join("%s (%s)" % (cls, ", ".join(names))
                                      for cls, names in t.unknown.items())),
            QuantQDQWarning, stacklevel=2)
    # Every op is located in the model file (line 0: no source line to
    # show), never in this text.
    file_loc = "loc(%s:0:0)" % mlir_string(t.source)
    text = "\n".join(
        ["module attributes {quant_qdq.onnx.graph_name = %s, "
         "quant_qdq.onnx.producer_name = \"quant-qdq keras import\"} {"
         % mlir_string(model.name),
         "func.func @main(%s) -> (%s) {" % (", ".join(arg_texts),
                                            ", ".join(result_texts))]
        + ["  " + line for line in t.lines]
        + ["  return %s : %s %s" % (", ".join(v.ssa for v in outputs),
                                    ", ".join(v.type for v in outputs),
                                    file_loc),
           "} %s" % file_loc, "} %s" % file_loc])
    return _quant_qdq.parse_module(text, t.source, t.resources)
