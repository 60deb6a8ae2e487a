"""Keras models in, and TFMOT's quantization API.

    from quant_qdq.keras import import_keras
    module = import_keras(model)            # keras.Model or a Keras file

    import quant_qdq.keras as qk            # for tfmot.quantization.keras
    qat = qk.quantize_model(model)          # annotate, apply (tfmot.py)

Importing this package does not import Keras: the front end is named
here, and TFMOT's names (quantize_model, quantize_annotate_layer,
quantize_annotate_model, quantize_apply, quantize_scope, QuantizeConfig,
NoOpQuantizeConfig, quantizers, export_qat_model) load on first use
(PEP 562), since they sit above placement, which imports the front end.
Quantization-aware training at insert-qdq's placement is
quant_qdq.keras.qat.
"""

import importlib

from .importer import import_keras
from .models import KerasImportError, is_keras_model, load_keras_model

__all__ = ["import_keras", "load_keras_model", "is_keras_model",
           "KerasImportError", "quantize_model", "quantize_annotate_layer",
           "quantize_annotate_model", "quantize_apply", "quantize_scope",
           "QuantizeConfig", "NoOpQuantizeConfig", "quantizers",
           "export_qat_model"]

# TFMOT's names: (module, attribute; None for the module itself).
_TFMOT_NAMES = {
    "quantize_model": ("tfmot", "quantize_model"),
    "quantize_annotate_layer": ("tfmot", "quantize_annotate_layer"),
    "quantize_annotate_model": ("tfmot", "quantize_annotate_model"),
    "quantize_apply": ("tfmot", "quantize_apply"),
    "quantize_scope": ("tfmot", "quantize_scope"),
    "QuantizeConfig": ("quantize_config", "QuantizeConfig"),
    "NoOpQuantizeConfig": ("quantize_config", "NoOpQuantizeConfig"),
    "quantizers": ("quantizers", None),
    "export_qat_model": ("qat", "export_qat_model"),
}


def __getattr__(name):
    if name not in _TFMOT_NAMES:
        raise AttributeError("module %r has no attribute %r"
                             % (__name__, name))
    module_name, attribute = _TFMOT_NAMES[name]
    module = importlib.import_module("." + module_name, __name__)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_TFMOT_NAMES))
