"""QuantizationSpec: the user's per-layer choices, as in NVIDIA's toolkit.

A spec is a list of LayerConfig entries. It crosses into C++ as the JSON
format that ``qdq-opt --qdq-spec`` reads (docs/InsertQDQ.md), so a spec
built here can be saved and given to the command-line tools unchanged.
"""

import json
from dataclasses import dataclass
from typing import Dict, List, Optional, Union

from ._options import CALIBRATION_METHODS

__all__ = ["LayerConfig", "QuantizationSpec"]

_QUANTIZER_FIELDS = {"bits": int, "format": str, "signed": bool,
                     "narrow_range": bool, "symmetric": bool,
                     "per_channel": bool, "block_size": int,
                     "calibration": str}
_FORMATS = ("int4", "int8", "int16", "fp8")
# TFMOT's quantizers name two of the fields otherwise; the JSON reader
# takes either name.
_TFMOT_FIELDS = {"num_bits": "bits", "per_axis": "per_channel"}
_MATCHES = ("exact", "substring")


@dataclass
class LayerConfig:
    """One entry of a QuantizationSpec, for one layer name or class.

    The first five fields are the toolkit's. ``match="substring"`` matches
    every layer whose name contains ``name`` (TensorQuant style); the
    quantizer fields override the default 8-bit signed narrow-range
    symmetric quantizer (keys: bits, signed, narrow_range, symmetric,
    per_channel; TFMOT's num_bits and per_axis too; ``format``, one of
    int4, int8, int16, fp8, and, for weights, ``block_size``: scales per
    block of that many input channels, 0 for per channel), for both sides
    or for inputs or weights only; an input
    quantizer's ``calibration`` (max, percentile, entropy, mse, last-value,
    moving-average: TFMOT's range estimators among them) picks how
    calibration chooses that tensor's range, whatever the global method.
    """

    name: str = None
    is_keras_class: bool = False
    quantize_input: bool = True
    quantize_weight: bool = True
    quantization_index: Optional[List[int]] = None
    match: str = "exact"
    quantizer: Optional[Dict[str, Union[int, bool]]] = None
    input_quantizer: Optional[Dict[str, Union[int, bool]]] = None
    weight_quantizer: Optional[Dict[str, Union[int, bool]]] = None

    def to_dict(self):
        """The entry in the JSON spec format."""
        entry = {"name": self.name, "is_keras_class": self.is_keras_class,
                 "quantize_input": self.quantize_input,
                 "quantize_weight": self.quantize_weight}
        if self.quantization_index is not None:
            entry["quantization_index"] = list(self.quantization_index)
        if self.match != "exact":
            entry["match"] = self.match
        for key in ("quantizer", "input_quantizer", "weight_quantizer"):
            value = getattr(self, key)
            if value is not None:
                entry[key] = dict(value)
        return entry


def _per_name(value, count, what, check):
    """`value` for each of `count` names: a list is one value per name."""
    if isinstance(value, list):
        if len(value) != count:
            raise ValueError(
                "`%s` is a list of %d values but `name` lists %d layers"
                % (what, len(value), count))
        values = value
    else:
        values = [value] * count
    for v in values:
        check(v, what)
    return values


def _check_bool(value, what):
    if not isinstance(value, bool):
        raise TypeError("`%s` must be a bool (or a list of bools), got %r"
                        % (what, value))


def _check_index(value, what):
    if value is None:
        return
    if (not isinstance(value, (list, tuple))
            or not all(isinstance(i, int) and not isinstance(i, bool)
                       and i >= 0 for i in value)):
        raise TypeError("`%s` must be None or a list of input positions "
                        "(non-negative ints), got %r" % (what, value))


def _check_quantizer(value, what):
    if value is None:
        return
    if not isinstance(value, dict):
        raise TypeError("`%s` must be a dict, got %r" % (what, value))
    for tfmot, ours in _TFMOT_FIELDS.items():
        if tfmot in value and ours in value:
            raise ValueError("`%s`: %r is TFMOT's name for %r: give one of "
                             "them" % (what, tfmot, ours))
    for key, v in value.items():
        kind = _QUANTIZER_FIELDS.get(_TFMOT_FIELDS.get(key, key))
        if kind is None:
            raise ValueError("`%s`: unknown quantizer field %r (known: %s)"
                             % (what, key, ", ".join(_QUANTIZER_FIELDS)))
        if kind is int and (isinstance(v, bool) or not isinstance(v, int)):
            raise TypeError("`%s`: %r must be an int" % (what, key))
        if kind is bool and not isinstance(v, bool):
            raise TypeError("`%s`: %r must be a bool" % (what, key))
        if key == "format" and v not in _FORMATS:
            raise ValueError("`%s`: format must be one of %s, got %r"
                             % (what, ", ".join(_FORMATS), v))
        if key == "calibration" and v not in CALIBRATION_METHODS:
            raise ValueError("`%s`: calibration must be one of %s, got %r"
                             % (what, ", ".join(CALIBRATION_METHODS), v))
        if key == "block_size" and v < 0:
            raise ValueError("`%s`: block_size must be 0 (per channel) or "
                             "positive, got %r" % (what, v))
    if what == "input_quantizer" and "block_size" in value:
        raise ValueError("`input_quantizer`: block_size applies to weight "
                         "quantizers")
    if what == "weight_quantizer" and "calibration" in value:
        raise ValueError("`weight_quantizer`: weights are scaled from their "
                         "values; calibration applies to input quantizers")


class QuantizationSpec:
    """Layers (by name or class) to quantize differently from the default.

    >>> qspec = QuantizationSpec()
    >>> qspec.add(name="Add", is_keras_class=True)
    >>> qspec.add(name=["conv1", "add_1"], quantize_weight=[False, True],
    ...           quantization_index=[None, [1]])
    """

    def __init__(self) -> None:
        self.layers: List[LayerConfig] = []

    def add(self, name, is_keras_class=False, quantize_input=True,
            quantize_weight=True, quantization_index=None, *,
            match="exact", quantizer=None, input_quantizer=None,
            weight_quantizer=None) -> None:
        """Adds one LayerConfig per name.

        Every argument may be a list with one value per name. With a single
        name, ``quantization_index`` is that layer's list of input positions;
        with a list of names, it is a list of such lists (or None), one per
        name. Keyword-only arguments apply to every name.
        """
        names = name if isinstance(name, list) else [name]
        for n in names:
            if not isinstance(n, str) or not n:
                raise TypeError("`name` must be a non-empty str or a list of "
                                "them, got %r" % (n,))
        count = len(names)
        classes = _per_name(is_keras_class, count, "is_keras_class",
                            _check_bool)
        inputs = _per_name(quantize_input, count, "quantize_input",
                           _check_bool)
        weights = _per_name(quantize_weight, count, "quantize_weight",
                            _check_bool)
        if isinstance(name, list) and isinstance(quantization_index, list):
            indices = _per_name(quantization_index, count,
                                "quantization_index", _check_index)
        else:
            _check_index(quantization_index, "quantization_index")
            indices = [quantization_index] * count
        if match not in _MATCHES:
            raise ValueError("`match` must be one of %s, got %r"
                             % (_MATCHES, match))
        for key, value in (("quantizer", quantizer),
                           ("input_quantizer", input_quantizer),
                           ("weight_quantizer", weight_quantizer)):
            _check_quantizer(value, key)
        for n, c, i, w, q in zip(names, classes, inputs, weights, indices):
            self.layers.append(LayerConfig(
                name=n, is_keras_class=c, quantize_input=i,
                quantize_weight=w,
                quantization_index=None if q is None else list(q),
                match=match, quantizer=quantizer,
                input_quantizer=input_quantizer,
                weight_quantizer=weight_quantizer))

    def __len__(self) -> int:
        return len(self.layers)

    def __iter__(self):
        return iter(self.layers)

    def __str__(self) -> str:
        return "\n".join(str(layer) for layer in self.layers)

    def __repr__(self) -> str:
        return "QuantizationSpec(%r)" % (self.layers,)

    def to_json(self, indent=None) -> str:
        """The spec as `qdq-opt --qdq-spec` reads it."""
        return json.dumps(
            {"layers": [layer.to_dict() for layer in self.layers]},
            indent=indent)

    def to_json_lines(self) -> str:
        """The JSON with entry i alone on line i + 2, so that a diagnostic's
        line shows the entry it is about (what quantize_model hands to
        insert-qdq)."""
        entries = ",\n".join(
            json.dumps(layer.to_dict()) for layer in self.layers)
        return '{"layers": [\n%s\n]}\n' % entries

    def save(self, path) -> None:
        with open(path, "w") as f:
            f.write(self.to_json(indent=2))
            f.write("\n")

    @classmethod
    def from_json(cls, text: str) -> "QuantizationSpec":
        """Reads the JSON spec format (a list, or {"layers": [...]})."""
        data = json.loads(text)
        entries = data.get("layers") if isinstance(data, dict) else data
        if not isinstance(entries, list):
            raise ValueError("a QuantizationSpec is a list of entries or "
                             "{\"layers\": [...]}")
        spec = cls()
        for entry in entries:
            if not isinstance(entry, dict) or "name" not in entry:
                raise ValueError("spec entry without a name: %r" % (entry,))
            spec.add(**entry)
        return spec

    @classmethod
    def load(cls, path) -> "QuantizationSpec":
        with open(path) as f:
            return cls.from_json(f.read())
