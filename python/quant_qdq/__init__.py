"""quant_qdq: Q/DQ placement for TensorRT, with NVIDIA's toolkit API.

    from quant_qdq import quantize_model, QuantizationSpec, ResNetV1QDQCase

    q_model = quantize_model("model.onnx",
                             custom_qdq_cases=[ResNetV1QDQCase()])

Models are ONNX (paths or onnx.ModelProto) or torch.nn.Module (exported to
ONNX on the way); results are onnx.ModelProto. The work is done by the
quant-qdq C++ libraries (MLIR) through the _quant_qdq extension; see
docs/Python.md.
"""

from ._quant_qdq import QuantQDQError, QuantQDQWarning
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
from .ir import (Module, export_onnx, import_onnx, load_module, parse_module,
                 run_pipeline, save_onnx)
from .quantize import insert_qdq, quantize_model
from .spec import LayerConfig, QuantizationSpec

__all__ = [
    "quantize_model", "insert_qdq", "QuantizationSpec", "LayerConfig",
    "CustomQDQInsertionCase", "RegisteredQDQCase", "ResNetV1QDQCase",
    "ResNetV2QDQCase", "EfficientNetQDQCase", "MobileNetQDQCase",
    "InceptionQDQCase", "TransformerQDQCase", "ResidualConnectionQDQCase",
    "BNQDQCase",
    "MaxPoolQDQCase", "check_is_quantizable_by_layer_name",
    "insertion_cases", "Graph", "Layer", "calibrate",
    "collect_calibration_table", "apply_calibration_table",
    "CalibrationTable", "TensorRange", "CALIBRATION_METHODS", "Module",
    "parse_module", "import_onnx", "export_onnx", "save_onnx", "run_pipeline",
    "load_module", "compare", "Comparison", "TensorComparison",
    "QuantQDQError", "QuantQDQWarning",
]
