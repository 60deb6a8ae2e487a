"""The MLIR text the Keras importer writes, and the tensors it names.

The importer builds a module as text and hands it to the C++ parser with
the weights as resources (no copy through the text): the package has no
MLIR Python bindings, and text keeps each layer's translation readable
next to the op syntax it produces (docs/reference/QuantQDQDialect.md).
"""

from typing import Optional

import numpy as np

__all__ = ["NCHW", "NHWC", "Value", "mlir_string", "f32", "i64s",
           "tensor_type", "attr_dict", "pair", "f32_array", "to_numpy"]

# Keras's image layout to ONNX's, and back.
NCHW = (0, 3, 1, 2)
NHWC = (0, 2, 3, 1)


def mlir_string(text: str) -> str:
    """`text` as an MLIR string literal."""
    out = []
    for byte in text.encode():
        c = chr(byte)
        if c in '"\\' or not (32 <= byte < 127):
            out.append("\\%02X" % byte)
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def f32(value: float) -> str:
    return "%.9e : f32" % float(np.float32(value))


def i64s(values) -> str:
    return "array<i64: %s>" % ", ".join(str(int(v)) for v in values)


def tensor_type(shape) -> str:
    dims = "".join(("?" if d is None else str(int(d))) + "x" for d in shape)
    return "tensor<%sf32>" % dims


def attr_dict(entries, layer_class: Optional[str] = None) -> str:
    """` {a = 1, ...}` of the non-empty `entries`, with the Keras class when
    it differs from the op's; empty when there is nothing to say."""
    entries = [e for e in entries if e]
    if layer_class:
        entries.append("quant_qdq.layer_class = %s" % mlir_string(layer_class))
    return " {%s}" % ", ".join(entries) if entries else ""


def pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * 2


def f32_array(value) -> np.ndarray:
    """`value` as a C-contiguous float32 array of its own rank (0-D
    included, which np.ascontiguousarray would make 1-D)."""
    return np.require(np.asarray(value, dtype=np.float32), requirements="C")


def to_numpy(variable) -> np.ndarray:
    return f32_array(variable.numpy() if hasattr(variable, "numpy")
                      else variable)


class Value:
    """A tensor of the model: its SSA name, its shape in the Keras layout,
    and whether it is held channel-first (4-D tensors only)."""

    def __init__(self, ssa: str, shape, nchw: bool = False,
                 origin: str = ""):
        self.ssa = ssa
        self.origin = origin
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.nchw = nchw
        self.other_layout: Optional["Value"] = None

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def held_shape(self):
        """The shape of the MLIR value."""
        if self.nchw:
            return tuple(self.shape[i] for i in NCHW)
        return self.shape

    @property
    def type(self) -> str:
        return tensor_type(self.held_shape)

    def axis(self, keras_axis: int) -> int:
        """The MLIR axis of a Keras axis of this tensor."""
        keras_axis %= self.rank
        return NCHW.index(keras_axis) if self.nchw else keras_axis
