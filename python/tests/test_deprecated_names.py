"""The module names the package had before its layers (docs/Architecture.md)
still import, for one release, with a DeprecationWarning naming the new
one. (keras_qat, which imports Keras, is tested with the Keras tests.)"""

import importlib
import sys

import pytest


def _import_fresh(name):
    sys.modules.pop(name, None)
    return importlib.import_module(name)


def test_keras_import_is_quant_qdq_keras():
    import quant_qdq.keras
    with pytest.warns(DeprecationWarning, match="now quant_qdq.keras"):
        old = _import_fresh("quant_qdq.keras_import")
    assert old.import_keras is quant_qdq.keras.import_keras
    assert old.KerasImportError is quant_qdq.keras.KerasImportError


def test_torch_qat_is_quant_qdq_torch_qat():
    import quant_qdq.torch.qat
    with pytest.warns(DeprecationWarning, match="now quant_qdq.torch.qat"):
        old = _import_fresh("quant_qdq.torch_qat")
    assert old.quantize_torch_model is quant_qdq.torch.qat.quantize_torch_model
    assert old.export_qat_module is quant_qdq.torch.qat.export_qat_module
