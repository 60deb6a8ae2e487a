"""Default rows added from Python: NVIDIA's wrapper classes.

In NVIDIA's toolkit, defining `<KerasClass>QuantizeWrapper` (a subclass of
BaseQuantizeWrapper) gives that Keras class its default behaviour:
whether its inputs are quantized, which ones, and its weight. Here such a
class registers a row (keras/nvidia_wrappers.py); in "full" mode placement
applies the rows as a case decided first, so the user's spec and the
insertion cases still win over them, as they win over the built-in table.
Layers the importer keeps generic are matched by their class name too.
"""

from typing import Dict, List, NamedTuple, Optional

__all__ = ["DefaultRow", "register_default_row", "default_rows",
           "forget_default_row"]


class DefaultRow(NamedTuple):
    keras_class: str
    quantize_input: bool
    quantize_weight: bool
    quantization_index: Optional[List[int]]
    source: str  # the class that registered it


_ROWS: Dict[str, DefaultRow] = {}


def register_default_row(row: DefaultRow) -> None:
    """Registers (or replaces) the default row of `row.keras_class`."""
    _ROWS[row.keras_class] = row


def forget_default_row(keras_class: str) -> None:
    _ROWS.pop(keras_class, None)


def default_rows() -> List[DefaultRow]:
    return list(_ROWS.values())

