"""Deprecated: quant_qdq.keras_import is now quant_qdq.keras.

Kept for one release so that code importing the old name runs; it warns
once with the new name.
"""

import warnings

from .keras import (KerasImportError, import_keras, is_keras_model,
                    load_keras_model)

__all__ = ["import_keras", "load_keras_model", "is_keras_model",
           "KerasImportError"]

warnings.warn("quant_qdq.keras_import is now quant_qdq.keras",
              DeprecationWarning, stacklevel=2)
