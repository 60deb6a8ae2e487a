"""TensorQuant's number formats on a model (docs/NumberFormats.md).

TensorQuant selects layers with dictionaries from name substrings to
quantizer names, the first matching key deciding: ``weight_q_map`` for the
weights of a layer, ``extr_q_map`` for its output. The same dictionaries
select formats here:

>>> m = apply_number_formats("model.onnx",
...                          weights={"conv": "nearest,8,6", "": "none"},
...                          outputs="nearest,16,8")
>>> print(compare(m, inputs=images))   # against the model without formats

The formats run wherever the module runs (compare, calibration) and stay
in float; ONNX export refuses them.
"""
import json
import os
import tempfile
from typing import Mapping, Optional, Union

from ._quant_qdq import Module
from .loading import load_module

__all__ = ["apply_number_formats"]

FormatMap = Union[str, os.PathLike, Mapping[str, Optional[str]]]


def _option(name: str, value: FormatMap, folder: str) -> str:
    """The pass option for `value`: a format name, a map file, or a
    dictionary written to a map file in its order."""
    if isinstance(value, Mapping):
        entries = {}
        for key, fmt in value.items():
            if not isinstance(key, str) or not (fmt is None or
                                                isinstance(fmt, str)):
                raise TypeError(
                    "%s: a map goes from layer-name substrings to format "
                    "names (or None), got %r: %r" % (name, key, fmt))
            entries[key] = "" if fmt is None else fmt
        path = os.path.join(folder, name + ".json")
        with open(path, "w") as f:
            json.dump(entries, f)
        value = path
    value = os.fspath(value)
    if '"' in value:
        raise ValueError("%s: %r has a double quote" % (name, value))
    return '%s="%s"' % (name, value)


def apply_number_formats(model, weights: Optional[FormatMap] = None,
                         outputs: Optional[FormatMap] = None) -> Module:
    """A new Module: `model` (what load_module takes) with its layers'
    weights and outputs rounded onto number formats by
    ``insert-number-formats``.

    Args:
      weights: TensorQuant's ``weight_q_map``: a format name for every
        layer (``"nearest,8,6"``, ``"ternary"``, ``"fp16"``), a dictionary
        from layer-name substrings to format names (None or ``"none"``
        keeps a layer), or the path of such a JSON map.
      outputs: the same for layer outputs (TensorQuant's ``extr_q_map``).
    """
    if weights is None and outputs is None:
        raise ValueError("apply_number_formats needs weights=, outputs= or "
                         "both")
    module = load_module(model)
    with tempfile.TemporaryDirectory(prefix="qdq-formats-") as folder:
        options = [_option(name, value, folder)
                   for name, value in (("weights", weights),
                                       ("outputs", outputs))
                   if value is not None]
        module.run_pipeline("builtin.module(insert-number-formats{%s})"
                            % " ".join(options))
    return module
