"""Deprecated: quant_qdq.torch_qat is now quant_qdq.torch.qat.

Kept for one release so that code importing the old name runs; it warns
once with the new name.
"""

import warnings

from .torch.qat import (RANGE_TRACKING, FakeQuantize, QATPlacementError,
                        QuantizedWeights, calibrate_ranges, export_qat_module,
                        fake_quantize, quantize_torch_model)

__all__ = ["FakeQuantize", "QuantizedWeights", "fake_quantize",
           "quantize_torch_model", "export_qat_module", "calibrate_ranges",
           "QATPlacementError", "RANGE_TRACKING"]

warnings.warn("quant_qdq.torch_qat is now quant_qdq.torch.qat",
              DeprecationWarning, stacklevel=2)
