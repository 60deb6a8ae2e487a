"""torch.nn.Module models in: exported to ONNX by torch.onnx.export on the
way, then imported as quant_qdq layer ops.

Importing this package does not import torch. Quantization-aware training
is quant_qdq.torch.qat (quantize_torch_model, export_qat_module), which
sits above placement: this package's __init__ names only the front end.
"""

from .export import export_torch, import_torch, is_torch_module

__all__ = ["import_torch", "export_torch", "is_torch_module"]
