"""Default rows added from Python: NVIDIA's wrapper classes.

In NVIDIA's toolkit, defining `<KerasClass>QuantizeWrapper` (a subclass of
BaseQuantizeWrapper) gives that Keras class its default behaviour:
whether its inputs are quantized, which ones, and its weight. Here such a
class registers a row (keras/nvidia_wrappers.py); in "full" mode placement
applies the rows of the classes a model has as a case decided first: the
user's spec replaces a row's decision, as it replaces the built-in
table's, and an insertion case's decision on the same layer merges with it
(inputs and weight quantized by either). Layers the importer keeps generic
are matched by their class name too. Rows last for the process: defining
the class is the registration.
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

