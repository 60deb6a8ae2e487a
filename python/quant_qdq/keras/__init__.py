"""Keras models in: a keras.Model (Keras 3 or tf.keras) or a Keras file as
quant_qdq layer ops.

    from quant_qdq.keras import import_keras
    module = import_keras(model)            # keras.Model or a Keras file

Importing this package does not import Keras. Quantization-aware training
is quant_qdq.keras.qat (quantize_keras_model, export_qat_model), which
does, and which sits above placement: this package's __init__ names only
the front end, so that the layers below placement can import it.
"""

from .importer import import_keras
from .models import KerasImportError, is_keras_model, load_keras_model

__all__ = ["import_keras", "load_keras_model", "is_keras_model",
           "KerasImportError"]
