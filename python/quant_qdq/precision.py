"""Accuracy to a budget: what each layer's quantization costs, and the
cheapest mix of formats that meets a target.

    report = quant_qdq.sensitivity(module, validation_images)
    report.rows[0].weight_only_sqnr_db, report.most_sensitive(5)
    quant_qdq.auto_precision(module, validation_images, target_sqnr=35)

Both run a calibrated network (quantize_model's placement and scales) on
validation data with the project's CPU engine; the network compiles once,
its Q/DQ pairs switched between formats by an extra input
(docs/Accuracy.md). quantize_model(..., accuracy_target=) calls
auto_precision.
"""

import json
import math
import os
import tempfile
from dataclasses import dataclass
from typing import List, Optional, Sequence

from ._quant_qdq import Module
from .calibration import data_paths

__all__ = ["sensitivity", "auto_precision", "Sensitivity",
           "LayerSensitivity"]


def _decibels(value) -> Optional[float]:
    # The table writes an infinite SQNR (no error) as "inf".
    if value is None:
        return None
    return math.inf if value == "inf" else float(value)


@dataclass
class LayerSensitivity:
    """One layer reading a quantized tensor: the network's output SQNR (dB)
    with only its weight, or only its input activations, quantized, and
    with everything but them quantized. None where it has no such tensor."""
    layer: str
    op: str
    macs: int
    weights: List[str]
    inputs: List[str]
    weight_only_sqnr_db: Optional[float]
    inputs_only_sqnr_db: Optional[float]
    weight_float_sqnr_db: Optional[float]
    inputs_float_sqnr_db: Optional[float]


@dataclass
class Sensitivity:
    samples: int
    sqnr_db: float
    """The whole network quantized."""
    top1_agreement: Optional[float]
    rows: List[LayerSensitivity]
    """In program order."""

    def most_sensitive(self, count: int = 10) -> List[LayerSensitivity]:
        """The `count` layers whose quantization alone (weight or inputs)
        costs the output most."""
        def alone(row):
            figures = [f for f in (row.weight_only_sqnr_db,
                                   row.inputs_only_sqnr_db) if f is not None]
            return min(figures) if figures else math.inf
        return sorted(self.rows, key=alone)[:count]


def _pass_options(data, folder, batch_size) -> str:
    if batch_size is not None and batch_size < 1:
        raise ValueError("batch_size must be positive (or None), got %r"
                         % (batch_size,))
    paths = data_paths(data, folder)
    options = "data=%s" % ",".join(paths)
    if batch_size:
        options += " batch-size=%d" % batch_size
    return options


def sensitivity(module: Module, data, *, chart: Optional[str] = None,
                batch_size: Optional[int] = None) -> Sensitivity:
    """Per layer, what quantizing its weight and its inputs costs the
    output of the calibrated `module` on `data` (as calibration_data is
    given: arrays, batches or .npy/.npz paths); `chart` also writes an SVG
    bar chart there. The module is not changed."""
    with tempfile.TemporaryDirectory(prefix="quant_qdq_sensitivity_") as d:
        options = _pass_options(data, d, batch_size)
        table = os.path.join(d, "table.json")
        options += " output=%s" % table
        if chart:
            options += " chart=%s" % os.fspath(chart)
        module.run_pipeline("qdq-sensitivity{%s}" % options)
        with open(table) as f:
            parsed = json.load(f)
    rows = [LayerSensitivity(
        layer=r["layer"], op=r["op"], macs=int(r["macs"]),
        weights=list(r["weights"]), inputs=list(r["inputs"]),
        weight_only_sqnr_db=_decibels(r["weight_only_sqnr_db"]),
        inputs_only_sqnr_db=_decibels(r["inputs_only_sqnr_db"]),
        weight_float_sqnr_db=_decibels(r["weight_float_sqnr_db"]),
        inputs_float_sqnr_db=_decibels(r["inputs_float_sqnr_db"]))
        for r in parsed["layers"]]
    return Sensitivity(samples=int(parsed["samples"]),
                       sqnr_db=_decibels(parsed["sqnr_db"]),
                       top1_agreement=parsed.get("top1_agreement"),
                       rows=rows)


def auto_precision(module: Module, data, *,
                   target_sqnr: Optional[float] = None,
                   target_top1: Optional[float] = None,
                   weight_formats: Sequence[str] = ("int8",),
                   activation_formats: Sequence[str] = ("int8", "float"),
                   batch_size: Optional[int] = None) -> str:
    """Requantizes the calibrated `module`, in place, with the cheapest mix
    of formats whose output on `data` reaches `target_sqnr` dB (or, given
    instead, `target_top1` percent of classifier rows agreeing with float);
    returns the report (each Q/DQ pair's format and error, the result)."""
    if (target_sqnr is None) == (target_top1 is None):
        raise ValueError("give one target: target_sqnr (dB) or target_top1 "
                         "(percent)")
    for name, formats in (("weight_formats", weight_formats),
                          ("activation_formats", activation_formats)):
        if isinstance(formats, str) or not formats:
            raise ValueError("%s must be a non-empty list of format names, "
                             "got %r" % (name, formats))
    with tempfile.TemporaryDirectory(prefix="quant_qdq_precision_") as d:
        options = _pass_options(data, d, batch_size)
        if target_sqnr is not None:
            options += " target-sqnr=%r" % float(target_sqnr)
        else:
            options += " metric=top1 target-top1=%r" % float(target_top1)
        report = os.path.join(d, "report.txt")
        options += " weight-formats=%s activation-formats=%s report=%s" % (
            ",".join(weight_formats), ",".join(activation_formats), report)
        module.run_pipeline("qdq-auto-precision{%s}" % options)
        with open(report) as f:
            return f.read()
