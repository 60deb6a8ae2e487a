"""load_module: any model the package takes, as a Module.

Above the front ends (keras/, torch/) and ir.py, so that everything that
takes "a model" (calibration, comparison, placement, quantize_model)
accepts the same forms.
"""

import os

from . import _quant_qdq
from ._quant_qdq import Module
from .ir import import_onnx
from .keras.importer import import_keras
from .keras.models import is_keras_file, is_keras_model, load_keras_model
from .torch.export import import_torch, is_torch_module

__all__ = ["load_module", "load_keras"]

_MLIR_SUFFIXES = (".mlir", ".mlirbc")


def load_keras(model):
    """(Module, keras.Model) for a keras.Model or a Keras file (loaded once,
    its path naming the module's locations), or None for other models:
    Python insertion cases receive the keras.Model itself."""
    if is_keras_model(model):
        return import_keras(model), model
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if not path.endswith(_MLIR_SUFFIXES) and is_keras_file(path):
            keras_model = load_keras_model(path)
            module = import_keras(keras_model, source=path)
            # A SavedModel of a bare TensorFlow graph is imported as ONNX.
            return module, (keras_model if is_keras_model(keras_model)
                            else None)
    return None


def load_module(model, example_input=None, opset_version: int = 13,
                dynamic_axes="batch") -> Module:
    """A new Module holding `model`: an ONNX file path, a .mlir/.mlirbc
    path, serialized ONNX bytes, an onnx.ModelProto, a Module (copied), a
    keras.Model or Keras file (.keras, .h5, SavedModel folder; see
    quant_qdq.keras), or a torch.nn.Module with `example_input` (exported
    with torch.onnx.export at `opset_version`, its batch axis free unless
    `dynamic_axes` says otherwise: quant_qdq.torch.export_torch)."""
    if isinstance(model, Module):
        return model.clone()
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if path.endswith(_MLIR_SUFFIXES):
            with open(path, "rb") as f:
                return _quant_qdq.parse_module(f.read(), path)
        if is_keras_file(path):
            return import_keras(path)
    if is_keras_model(model):
        return import_keras(model)
    if is_torch_module(model):
        return import_torch(model, example_input, opset_version,
                            dynamic_axes)
    return import_onnx(model)
