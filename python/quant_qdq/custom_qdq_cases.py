"""Custom Q/DQ insertion cases, as in ``tensorflow_quantization``.

A case decides, on a model's layer graph, which layers to quantize
differently from the default table, and returns its choice as a
QuantizationSpec. quantize_model merges what every case returns below the
user's QuantizationSpec: the user's spec always wins.

The library cases (ResNetV1QDQCase ...) are the C++ registry's (PDLL
patterns, docs/InsertQDQ.md): quantize_model applies them by name inside
insert-qdq, and their ``case()`` runs the same patterns on a copy of the
model to return the spec they stand for.
"""

import os
from typing import Optional

from . import _quant_qdq
from .graph import Graph
from .spec import QuantizationSpec

__all__ = [
    "CustomQDQInsertionCase", "RegisteredQDQCase", "ResNetV1QDQCase",
    "TransformerQDQCase",
    "ResNetV2QDQCase", "EfficientNetQDQCase", "MobileNetQDQCase",
    "InceptionQDQCase", "ResidualConnectionQDQCase", "BNQDQCase",
    "MaxPoolQDQCase", "check_is_quantizable_by_layer_name",
    "insertion_cases",
]


def check_is_quantizable_by_layer_name(
        qspec: Optional[QuantizationSpec], current_layer_name: str) -> bool:
    """True when the user's `qspec` does not name `current_layer_name`, so
    that a case may decide for it (the user's request is prioritized)."""
    return qspec is None or all(layer.name != current_layer_name
                                for layer in qspec.layers)


class CustomQDQInsertionCase:
    """Base class of insertion cases. Override ``case``, optionally
    ``info``."""

    def __init__(self) -> None:
        pass

    def info(self) -> str:
        """A short description of what the case does."""
        return ""

    def case(self, model: Graph,
             qspec: Optional[QuantizationSpec]) -> QuantizationSpec:
        """Returns the layers this case quantizes, given the model's layer
        graph and the user's spec (None when there is none)."""
        raise NotImplementedError(
            "%s must override case(model, qspec)" % type(self).__name__)


class RegisteredQDQCase(CustomQDQInsertionCase):
    """A case of the C++ registry (``qdq-opt --insert-qdq=NAME``), or a
    user case file (.pdll or PDL .mlir) given by its path."""

    case_name: str = ""

    def __init__(self, case_name: Optional[str] = None) -> None:
        super().__init__()
        if case_name is not None:
            self.case_name = os.fspath(case_name)
        if not self.case_name:
            raise ValueError("a registered case needs a name or a file path")

    def info(self) -> str:
        entry = insertion_cases().get(self.case_name)
        return entry[0] if entry else self.case_name

    def case(self, model: Graph,
             qspec: Optional[QuantizationSpec]) -> QuantizationSpec:
        result = QuantizationSpec()
        for name, _, inputs, weight in model.module.case_records(
                self.case_name):
            # An unnamed layer cannot be named in a spec; insert-qdq still
            # applies the case to it when given the case itself.
            if not name or not check_is_quantizable_by_layer_name(qspec,
                                                                  name):
                continue
            if inputs:
                result.add(name, quantize_input=True, quantize_weight=weight,
                           quantization_index=list(inputs))
            else:
                result.add(name, quantize_input=False,
                           quantize_weight=weight)
        return result

    def __repr__(self) -> str:
        return "%s(%r)" % (type(self).__name__, self.case_name)


class ResidualConnectionQDQCase(RegisteredQDQCase):
    """On every Add, the first convolution-fed input with one consumer stays
    in float; every other input gets Q/DQ."""

    case_name = "residual"

    def __init__(self) -> None:
        super().__init__()


class BNQDQCase(RegisteredQDQCase):
    """Q/DQ on the input of every BatchNormalization not fed by a
    convolution."""

    case_name = "bn"

    def __init__(self) -> None:
        super().__init__()


class MaxPoolQDQCase(RegisteredQDQCase):
    """Q/DQ on the input of every MaxPooling2D."""

    case_name = "maxpool"

    def __init__(self) -> None:
        super().__init__()


class ResNetV1QDQCase(RegisteredQDQCase):
    """ResNet-v1: residual connections."""

    case_name = "resnet-v1"

    def __init__(self) -> None:
        super().__init__()


class ResNetV2QDQCase(RegisteredQDQCase):
    """ResNet-v2: residual connections, BN not fed by a convolution,
    MaxPool."""

    case_name = "resnet-v2"

    def __init__(self) -> None:
        super().__init__()


class EfficientNetQDQCase(RegisteredQDQCase):
    """EfficientNet: residual connections, both inputs of squeeze-excite
    Multiply layers."""

    case_name = "efficientnet"

    def __init__(self) -> None:
        super().__init__()


class MobileNetQDQCase(RegisteredQDQCase):
    """MobileNet: residual connections."""

    case_name = "mobilenet"

    def __init__(self) -> None:
        super().__init__()


class InceptionQDQCase(RegisteredQDQCase):
    """Inception: MaxPool layers."""

    case_name = "inception"

    def __init__(self) -> None:
        super().__init__()


class TransformerQDQCase(RegisteredQDQCase):
    """Transformers and hybrids (ViT, Swin, BERT-like encoders): both
    inputs of attention's batched MatMuls when the sequence length is at
    most `max_attention_sequence` (TensorRT's INT8 fused attention takes
    512), GEMV-like and tiny dense layers in float; residual Adds,
    LayerNorm, GELU and Softmax stay in float (add the "residual-gemm"
    case to quantize the residual stream)."""

    case_name = "transformer"

    def __init__(self, max_attention_sequence: int = 512) -> None:
        super().__init__()
        if (not isinstance(max_attention_sequence, int)
                or isinstance(max_attention_sequence, bool)
                or max_attention_sequence < 1):
            raise ValueError("max_attention_sequence must be a positive "
                             "integer, got %r" % (max_attention_sequence,))
        self.max_attention_sequence = max_attention_sequence

    def __repr__(self) -> str:
        return "%s(max_attention_sequence=%d)" % (
            type(self).__name__, self.max_attention_sequence)


def insertion_cases():
    """The registered cases: {name: (description, building blocks)}."""
    return {name: (description, tuple(parts))
            for name, description, parts in _quant_qdq.insertion_cases()}


def applies_by_name(case) -> Optional[str]:
    """The registry name insert-qdq can apply `case` by, when its ``case``
    is the registry's own (not overridden in a subclass)."""
    if isinstance(case, (str, os.PathLike)):
        return os.fspath(case)
    if (isinstance(case, RegisteredQDQCase)
            and type(case).case is RegisteredQDQCase.case):
        return case.case_name
    return None
