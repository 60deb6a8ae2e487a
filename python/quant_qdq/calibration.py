"""Calibration from Python: scales from data, through the C++ calibrator.

The model runs on the CPU, compiled by the project's own pipeline (the
float network with its Q/DQ pairs removed, docs/Calibration.md). Data is a
numpy array (a batch of samples along its first dimension), a mapping of
the model's input names to such arrays (a model of several inputs: token
ids, attention mask, positions), an iterable of such batches (numpy arrays,
torch tensors, mappings, or ``(inputs, labels)`` pairs as a DataLoader
yields), or paths of .npy or .npz files or folders. Batches are streamed to
.npy (.npz) files in a temporary folder, which the calibrator maps rather
than reads: memory holds one batch at a time on the Python side.
"""

import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional

from . import _quant_qdq
from ._arrays import is_array, is_path, to_array
from ._options import CALIBRATION_METHODS, check_calibration_settings
from .ir import Module, export_onnx
from .loading import load_module

__all__ = ["TensorRange", "CalibrationTable", "CALIBRATION_METHODS",
           "collect_calibration_table", "apply_calibration_table",
           "calibrate", "collect_table", "apply_table", "data_paths"]


@dataclass(frozen=True)
class TensorRange:
    """What calibration learned about one tensor."""

    amax: float
    min: float
    max: float


class CalibrationTable(Mapping):
    """Ranges by tensor name (graph input names, ``<layer>_output_<i>``),
    as ``--calibrate="save=..."`` writes them."""

    def __init__(self, method: str = "max",
                 ranges: Optional[Dict[str, TensorRange]] = None) -> None:
        self.method = method
        self._ranges = dict(ranges or {})

    def __getitem__(self, name: str) -> TensorRange:
        return self._ranges[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._ranges)

    def __len__(self) -> int:
        return len(self._ranges)

    def __repr__(self) -> str:
        return "CalibrationTable(%r, %r)" % (self.method, self._ranges)

    def _entries(self):
        return [(name, float(r.amax), float(r.min), float(r.max))
                for name, r in self._ranges.items()]

    @classmethod
    def _from_entries(cls, method, entries) -> "CalibrationTable":
        return cls(method, {name: TensorRange(amax, lo, hi)
                            for name, amax, lo, hi in entries})

    def save(self, path) -> None:
        """Writes JSON (``.json``) or a TensorRT calibration cache (any
        other name)."""
        _quant_qdq.write_calibration_table(os.fspath(path), self.method,
                                           self._entries())

    @classmethod
    def load(cls, path) -> "CalibrationTable":
        """Reads either format back."""
        method, entries = _quant_qdq.read_calibration_table(os.fspath(path))
        return cls._from_entries(method, entries)


def data_paths(data, folder: str) -> List[str]:
    """Paths the C++ calibrator reads: given paths as they are, arrays
    written as .npy files under `folder`, mappings of input names to arrays
    as .npz files, in order."""
    import numpy as np
    if is_path(data):
        return [os.fspath(data)]
    if isinstance(data, (list, tuple)) and data and all(map(is_path, data)):
        return [os.fspath(p) for p in data]
    batches = [data] if is_array(data) or isinstance(data, Mapping) else data
    try:
        iterator = iter(batches)
    except TypeError:
        raise TypeError("calibration data must be an array, a mapping of "
                        "input names to arrays, an iterable of batches or "
                        ".npy/.npz paths, got %s"
                        % type(data).__name__) from None
    paths = []
    for i, batch in enumerate(iterator):
        # A DataLoader yields (inputs, labels): the model takes the inputs.
        if isinstance(batch, (list, tuple)) and not is_array(batch):
            if not batch:
                raise ValueError("calibration batch %d is empty" % i)
            batch = batch[0]
        named = batch if isinstance(batch, Mapping) else {None: batch}
        arrays = {name: to_array(value) for name, value in named.items()}
        for name, array in arrays.items():
            if array.ndim == 0 or array.shape[0] == 0:
                raise ValueError("calibration batch %d%s holds no samples "
                                 "(shape %s)" % (
                                     i, "" if name is None else
                                     " ('%s')" % name, array.shape))
        if isinstance(batch, Mapping):
            path = os.path.join(folder, "batch_%06d.npz" % i)
            np.savez(path, **{str(k): v for k, v in arrays.items()})
        else:
            path = os.path.join(folder, "batch_%06d.npy" % i)
            np.save(path, arrays[None])
        paths.append(path)
    if not paths:
        raise ValueError("no calibration data")
    return paths


def collect_table(module: Module, data, method: str = "max", *,
                  percentile: float = 99.99, bins: int = 2048,
                  batch_size: Optional[int] = None, progress: bool = False
                  ) -> CalibrationTable:
    """Runs `module` (with its Q/DQ pairs) on `data`; the range of every
    tensor a quantize op reads. `batch_size` (samples per run of a model
    with a dynamic batch) None lets calibration choose: 32 for last-value
    and moving-average, else one per thread, 4 to 32."""
    check_calibration_settings(method, percentile, bins, batch_size)
    with tempfile.TemporaryDirectory(prefix="quant_qdq_calib_") as folder:
        paths = data_paths(data, folder)
        result_method, entries = module.collect_calibration_table(
            paths, method, float(percentile), int(bins),
            int(batch_size or 0), "",
            bool(progress))
    return CalibrationTable._from_entries(result_method, entries)


def collect_calibration_table(model, data, method: str = "max", *,
                              percentile: float = 99.99, bins: int = 2048,
                              batch_size: Optional[int] = None,
                              progress: bool = False
                              ) -> CalibrationTable:
    """The calibration table of a model that already has Q/DQ nodes (a
    QDQ onnx.ModelProto, an ONNX path or a Module), from `data`. Methods:
    max, percentile, entropy, mse, last-value, moving-average
    (docs/Calibration.md)."""
    return collect_table(load_module(model), data, method,
                         percentile=percentile, bins=bins,
                         batch_size=batch_size, progress=progress)


def apply_table(module: Module, table: CalibrationTable) -> None:
    """Sets the scales of `module`'s Q/DQ pairs, in place, from `table`."""
    if not isinstance(table, CalibrationTable):
        raise TypeError("expected a CalibrationTable, got %s"
                        % type(table).__name__)
    module.apply_calibration_table(table.method, table._entries())


def apply_calibration_table(model, table: CalibrationTable, *,
                            integer_weights: bool = True):
    """`model` (with Q/DQ nodes) with the scales of `table`, as an
    onnx.ModelProto."""
    module = load_module(model)
    apply_table(module, table)
    return export_onnx(module, integer_weights=integer_weights)


def calibrate(model, data, method: str = "max", *,
              percentile: float = 99.99, bins: int = 2048,
              batch_size: Optional[int] = None, integer_weights: bool = True,
              progress: bool = False):
    """Calibrates a QDQ model on `data` and returns it as an
    onnx.ModelProto with every scale set."""
    module = load_module(model)
    table = collect_table(module, data, method, percentile=percentile,
                          bins=bins, batch_size=batch_size,
                          progress=progress)
    apply_table(module, table)
    return export_onnx(module, integer_weights=integer_weights)
