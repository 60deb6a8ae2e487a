"""Deprecated: quant_qdq.keras_qat is now quant_qdq.keras.qat.

Kept for one release so that code importing the old name runs; it warns
once with the new name.
"""

import warnings

from .keras.qat import (RANGE_TRACKING, FakeQuantize, QuantizeWeights,
                        calibrate_ranges, export_qat_model, fake_quantize,
                        quantize_keras_model)

__all__ = ["FakeQuantize", "QuantizeWeights", "fake_quantize",
           "quantize_keras_model", "calibrate_ranges", "export_qat_model",
           "RANGE_TRACKING"]

warnings.warn("quant_qdq.keras_qat is now quant_qdq.keras.qat",
              DeprecationWarning, stacklevel=2)
