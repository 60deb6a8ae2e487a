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


def _names(prefix: str, count: int):
    return [prefix] if count == 1 else ["%s_%d" % (prefix, i)
                                        for i in range(count)]


def _outputs(model, args):
    """The tensors `model` returns on `args`, flattened as the export
    flattens them (tuples, lists, dicts, nested), run in eval mode (as the
    export traces it) without changing its mode or statistics."""
    import torch
    from torch.utils._pytree import tree_flatten
    training = model.training
    model.eval()
    try:
        with torch.no_grad():
            out = model(*args)
    finally:
        model.train(training)
    return [t for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor)]


def export_torch(model, example_input, opset_version: int,
                 dynamic_axes="batch"):
    """(serialized ONNX, file name for diagnostics) of a torch.nn.Module,
    traced on `example_input` (a tensor or a tuple of them). Inputs are
    named `input` (or `input_0`, `input_1` ...), outputs `output` (or
    `output_0` ..., counted by one eval-mode run) unless `dynamic_axes` is
    None. `dynamic_axes`: "batch" (the default) leaves the first axis of
    every input and output free, as a torch module takes any batch; None
    fixes every size to the example's; a dict is torch.onnx.export's, by
    those names."""
    import torch
    if example_input is None:
        raise ValueError("a torch.nn.Module is exported to ONNX on the way: "
                         "give example_input (a tensor or a tuple of them)")
    args = (example_input if isinstance(example_input, tuple)
            else (example_input,))
    if isinstance(dynamic_axes, str) and dynamic_axes != "batch":
        raise ValueError("dynamic_axes is 'batch', None or a dict of "
                         "torch.onnx.export's, got %r" % dynamic_axes)
    inputs = _names("input", len(args))
    outputs = None
    if dynamic_axes:
        # Named, so that dynamic axes can be given by name.
        results = _outputs(model, args)
        outputs = _names("output", len(results))
    if dynamic_axes == "batch":
        # The first axis of every tensor of rank 1 or more.
        dynamic_axes = {name: {0: "batch"} for name, tensor in zip(
            inputs + outputs, list(args) + results)
            if getattr(tensor, "dim", lambda: 0)() > 0}
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        # The exporter's tracer warnings are about the user's model code.
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, buffer, opset_version=opset_version,
                          input_names=inputs, output_names=outputs,
                          dynamic_axes=dynamic_axes or None,
                          do_constant_folding=True,
                          training=torch.onnx.TrainingMode.EVAL)
    name = type(model).__name__ + ".onnx"
    return buffer.getvalue(), name


def import_torch(model, example_input, opset_version: int = 13,
                 dynamic_axes="batch") -> Module:
    """A Module of quant_qdq layer ops holding the ONNX export of `model`
    (export_torch says what `dynamic_axes` takes)."""
    data, name = export_torch(model, example_input, opset_version,
                              dynamic_axes)
    return _quant_qdq.import_onnx(data, name)
