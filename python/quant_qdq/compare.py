"""What quantization did to a network's numbers: `qdq-run --compare` in
Python.

    result = quant_qdq.compare("model.qdq.onnx", "model.onnx", images)
    print(result)                       # the report qdq-run prints
    result.outputs[0].sqnr_db, result.worst_layers(5)

Both networks run, compiled by the project's CPU engine, on the same
inputs; see docs/Execution.md for what the figures mean.
"""

import os
import tempfile
from dataclasses import dataclass
from typing import List, Optional, Tuple

from ._arrays import is_array, to_array
from ._quant_qdq import Module
from .loading import load_module

__all__ = ["compare", "Comparison", "TensorComparison"]


@dataclass
class TensorComparison:
    """The reference's and the quantized network's values of one tensor."""
    name: str
    layer: str
    op: str
    shape: Tuple[int, ...]
    sqnr_db: float
    """10 log10(sum ref^2 / sum (ref - q)^2); inf when equal."""
    own_sqnr_db: Optional[float]
    """Layers: the SQNR of the error the layer adds itself."""
    max_error: float
    reference_range: Tuple[float, float]
    top1_agreeing: Optional[int]
    """[N, classes] outputs: rows whose top-1 class agrees."""
    rows: int


@dataclass
class Comparison:
    outputs: List[TensorComparison]
    layers: List[TensorComparison]
    """Every layer both networks compute, in the quantized one's order."""
    skipped_outputs: List[str]
    text: str

    def worst_layers(self, count: int = 10) -> List[TensorComparison]:
        """The `count` layers whose own SQNR is lowest."""
        return sorted(self.layers, key=lambda row: row.own_sqnr_db)[:count]

    def __str__(self) -> str:
        return self.text


def compare(quantized, reference=None, inputs=None, *,
            layers: int = 10, entry: str = "") -> Comparison:
    """Runs `quantized` and `reference` on `inputs` and compares them.

    Args:
      quantized: the quantized network: an ONNX path, ModelProto or bytes, a
        Module, or an .mlir path (as load_module takes).
      reference: the float network in the same forms, its tensors matched by
        name; None: `quantized` with its Q/DQ and number formats removed
        (weights stored in int8 stay quantized then).
      inputs: an array (torch tensors too) or a list of them, one per input
        of the network.
      layers: how many of the worst layers the text lists; 0 compares the
        outputs only.
      entry: the function to run (default: the only public one).
    """
    if inputs is None:
        raise ValueError("compare needs inputs: an array, or one per input "
                         "of the network")
    arrays = [inputs] if is_array(inputs) else list(inputs)
    if layers < 0:
        raise ValueError("layers must be >= 0, got %r" % (layers,))
    q = quantized if isinstance(quantized, Module) else load_module(quantized)
    ref = None
    if reference is not None:
        ref = (reference if isinstance(reference, Module)
               else load_module(reference))
    import numpy as np
    with tempfile.TemporaryDirectory(prefix="qdq-compare-") as folder:
        paths = []
        for i, array in enumerate(arrays):
            path = os.path.join(folder, "input_%d.npy" % i)
            np.save(path, to_array(array))
            paths.append(path)
        outputs, rows, skipped, text = q.compare(ref, paths, int(layers),
                                                 entry)

    def convert(row):
        return TensorComparison(
            name=row["name"], layer=row["layer"], op=row["op"],
            shape=tuple(row["shape"]), sqnr_db=row["sqnr_db"],
            own_sqnr_db=row["own_sqnr_db"], max_error=row["max_error"],
            reference_range=tuple(row["reference_range"]),
            top1_agreeing=row["top1_agreeing"], rows=row["rows"])
    return Comparison(outputs=[convert(r) for r in outputs],
                      layers=[convert(r) for r in rows],
                      skipped_outputs=list(skipped), text=text)
