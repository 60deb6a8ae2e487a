"""torch.nn.Module models in: traced by torch.onnx.export, then imported.

torch is not imported here unless the user did: a model can only be a
torch.nn.Module if torch is loaded.
"""

import io
import sys
import warnings

from .. import _quant_qdq
from .._quant_qdq import Module

__all__ = ["is_torch_module", "export_torch", "import_torch"]


def is_torch_module(model) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(model, torch.nn.Module)


def export_torch(model, example_input, opset_version: int):
    """(serialized ONNX, file name for diagnostics) of a torch.nn.Module,
    traced on `example_input` (a tensor or a tuple of them)."""
    import torch
    if example_input is None:
        raise ValueError("a torch.nn.Module is exported to ONNX on the way: "
                         "give example_input (a tensor or a tuple of them)")
    args = (example_input if isinstance(example_input, tuple)
            else (example_input,))
    names = (["input"] if len(args) == 1
             else ["input_%d" % i for i in range(len(args))])
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        # The exporter's tracer warnings are about the user's model code.
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, buffer, opset_version=opset_version,
                          input_names=names, do_constant_folding=True,
                          training=torch.onnx.TrainingMode.EVAL)
    name = type(model).__name__ + ".onnx"
    return buffer.getvalue(), name


def import_torch(model, example_input, opset_version: int = 13) -> Module:
    """A Module of quant_qdq layer ops holding the ONNX export of `model`."""
    data, name = export_torch(model, example_input, opset_version)
    return _quant_qdq.import_onnx(data, name)
