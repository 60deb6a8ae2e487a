"""quant_qdq: Q/DQ placement for TensorRT, with NVIDIA's toolkit API.

    from quant_qdq import quantize_model, QuantizationSpec, ResNetV1QDQCase

    q_model = quantize_model("model.onnx",
                             custom_qdq_cases=[ResNetV1QDQCase()])

Models are ONNX (paths or onnx.ModelProto), Keras (a keras.Model of Keras 3
or tf.keras, or a .keras/.h5 file or SavedModel folder; layers keep their
Keras names and classes) or torch.nn.Module (exported to ONNX on the way);
results are onnx.ModelProto. The work is done by the
quant-qdq C++ libraries (MLIR) through the _quant_qdq extension; see
docs/Python.md, and docs/Architecture.md for the package's layers.
"""

import os as _os
import sys as _sys

# TensorFlow makes its bundled protobuf global (RTLD_GLOBAL); the extension's
# ONNX and protobuf libraries must bind to their own, or a model built after
# `import tensorflow` crashes in protobuf. Deep binding puts the extension's
# own dependencies first.
_flags = _sys.getdlopenflags()
_sys.setdlopenflags(_flags | getattr(_os, "RTLD_DEEPBIND", 0))
try:
    from . import _quant_qdq
finally:
    _sys.setdlopenflags(_flags)

from ._quant_qdq import QuantQDQError, QuantQDQWarning
from ._version import VERSION as __version__
from .calibration import (CALIBRATION_METHODS, CalibrationTable, TensorRange,
                          apply_calibration_table, calibrate,
                          collect_calibration_table)
from .compare import Comparison, TensorComparison, compare
from .custom_qdq_cases import (BNQDQCase, CustomQDQInsertionCase,
                               EfficientNetQDQCase, InceptionQDQCase,
                               MaxPoolQDQCase, MobileNetQDQCase,
                               RegisteredQDQCase, ResidualConnectionQDQCase,
                               ResNetV1QDQCase, ResNetV2QDQCase,
                               TransformerQDQCase,
                               check_is_quantizable_by_layer_name,
                               insertion_cases)
from .graph import Graph, Layer
from .ir import (Module, export_onnx, import_onnx, parse_module,
                 run_pipeline, save_onnx)
from .keras import import_keras, load_keras_model
from .loading import load_module
from .number_formats import apply_number_formats
from .precision import (LayerSensitivity, Sensitivity, auto_precision,
                        sensitivity)
from .quantize import insert_qdq, quantize_model
from .spec import LayerConfig, QuantizationSpec

__all__ = [
    "quantize_model", "insert_qdq", "QuantizationSpec", "LayerConfig",
    "apply_number_formats",
    "CustomQDQInsertionCase", "RegisteredQDQCase", "ResNetV1QDQCase",
    "ResNetV2QDQCase", "EfficientNetQDQCase", "MobileNetQDQCase",
    "InceptionQDQCase", "TransformerQDQCase", "ResidualConnectionQDQCase",
    "BNQDQCase",
    "MaxPoolQDQCase", "check_is_quantizable_by_layer_name",
    "insertion_cases", "Graph", "Layer", "calibrate",
    "collect_calibration_table", "apply_calibration_table",
    "CalibrationTable", "TensorRange", "CALIBRATION_METHODS", "Module",
    "parse_module", "import_onnx", "import_keras", "load_keras_model",
    "export_onnx", "save_onnx", "run_pipeline",
    "load_module", "compare", "Comparison", "TensorComparison",
    "sensitivity", "Sensitivity", "LayerSensitivity", "auto_precision",
    "QuantQDQError", "QuantQDQWarning", "BaseQuantizeWrapper",
    "WeightedBaseQuantizeWrapper", "NonWeightedBaseQuantizeWrapper",
]

# NVIDIA's wrapper classes are Keras layers: Keras loads when one is first
# named (PEP 562), never on `import quant_qdq`.
_KERAS_WRAPPERS = ("BaseQuantizeWrapper", "WeightedBaseQuantizeWrapper",
                   "NonWeightedBaseQuantizeWrapper")


def __getattr__(name):
    if name not in _KERAS_WRAPPERS:
        raise AttributeError("module %r has no attribute %r"
                             % (__name__, name))
    from .keras import nvidia_wrappers
    value = getattr(nvidia_wrappers, name)
    globals()[name] = value
    return value
