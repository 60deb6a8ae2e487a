"""Q/DQ placement: NVIDIA's toolkit's decisions, made by insert-qdq.

The module is imported into MLIR already; Python cases record their
choices on its layers, and the qdq-quantize pipeline (the one
`qdq-opt --qdq-quantize` runs) places the Q/DQ pairs (user spec, then
cases, then the default table) and, when data is given, calibrates.
Everything runs in memory, in the C++ libraries.

What placement decided reaches Python as data: the layer graph read after
insertion (Graph: each layer's quantized inputs and weight), and the
report's text for people.
"""

import inspect
import os
import tempfile
import warnings
from typing import Dict, List, Optional, Tuple

from ._options import check_calibration_settings, check_quantization_mode
from ._quant_qdq import Module
from .calibration import data_paths
from .custom_qdq_cases import CustomQDQInsertionCase, applies_by_name
from .graph import Graph
from .layer_defaults import default_rows
from .spec import QuantizationSpec

__all__ = ["insert_qdq", "place_qdq", "qat_placement"]

# The calibrate pass's default histogram resolution.
_BINS = 2048


def _split_cases(custom_qdq_cases):
    """(names insert-qdq applies itself, cases whose case() runs here)."""
    if custom_qdq_cases is None:
        return [], []
    if isinstance(custom_qdq_cases,
                  (str, os.PathLike, CustomQDQInsertionCase)):
        custom_qdq_cases = [custom_qdq_cases]
    names, python_cases = [], []
    for case in custom_qdq_cases:
        name = applies_by_name(case)
        if name is not None:
            names.append(name)
        elif callable(getattr(case, "case", None)):
            python_cases.append(case)
        else:
            raise TypeError(
                "custom_qdq_cases holds CustomQDQInsertionCase objects or "
                "registered case names, got %r" % (case,))
    return names, python_cases


def _attention_max_sequence(custom_qdq_cases) -> int:
    """The attention bound the cases ask for (TransformerQDQCase's
    max_attention_sequence); 512, TensorRT's, when none does."""
    if not isinstance(custom_qdq_cases, (list, tuple)):
        custom_qdq_cases = [custom_qdq_cases]
    bounds = {case.max_attention_sequence for case in custom_qdq_cases
              if hasattr(case, "max_attention_sequence")}
    if len(bounds) > 1:
        raise ValueError("the cases ask for different attention sequence "
                         "bounds: %s" % sorted(bounds))
    return bounds.pop() if bounds else 512


def _record_python_cases(module: Module, python_cases,
                         quantization_spec: Optional[QuantizationSpec],
                         keras_model=None):
    """Runs each Python case on the model (the `keras_model` itself when
    the model is a Keras one, as the toolkit does; otherwise the graph as
    imported) and the user's spec, and records what it returns on the
    module's layers."""
    if not python_cases:
        return
    # A copy: a case cannot change the module being quantized.
    view = keras_model if keras_model is not None else Graph(module.clone())
    specs = []
    for case in python_cases:
        result = case.case(view, quantization_spec)
        if result is not None and not isinstance(result, QuantizationSpec):
            raise TypeError("%s.case() must return a QuantizationSpec, "
                            "got %s" % (type(case).__name__,
                                        type(result).__name__))
        if keras_model is None and (result is None or not len(result)):
            _warn_empty_case(case, view)
        if result is not None:
            specs.append((type(case).__name__, result))
    for case_name, case_spec in specs:
        if len(case_spec):
            module.record_case_spec(case_name, case_spec.to_json_lines())


def _record_default_rows(module: Module):
    """The rows NVIDIA-style wrapper classes registered, for the classes
    the model has, recorded first (a case's decision on the same layer
    merges with it; the user's spec replaces both), each under its
    wrapper's name for the report."""
    rows = default_rows()
    if not rows:
        return
    classes = {layer.class_name for layer in Graph(module).layers}
    for row in rows:
        if row.keras_class not in classes:
            continue
        spec = QuantizationSpec()
        spec.add(name=row.keras_class, is_keras_class=True,
                 quantize_input=row.quantize_input,
                 quantize_weight=row.quantize_weight,
                 quantization_index=row.quantization_index)
        module.record_case_spec(row.source, spec.to_json_lines())


def _written_for_keras(case) -> bool:
    """Whether the case's code tests Keras classes (isinstance on keras
    layers), as the toolkit's cases do; True when its code is not at
    hand."""
    try:
        source = inspect.getsource(type(case))
    except (OSError, TypeError):
        return True
    return "isinstance" in source and "keras" in source


def _warn_empty_case(case, graph: Graph):
    """A case written for a Keras model (isinstance tests on its layers)
    that quantizes nothing on a Graph: say what it got."""
    if not _written_for_keras(case):
        return
    classes = sorted({layer.class_name for layer in graph.layers})
    warnings.warn(
        "%s.case() returned no layer to quantize. It received a "
        "quant_qdq.Graph, the layer graph of a model that is not Keras "
        "(its layers have .name and .class_name, here %s), not a "
        "keras.Model: isinstance(layer, keras.layers.X) never holds on it; "
        "test layer.class_name instead" % (
            type(case).__name__, ", ".join(classes[:12]) +
            (", ..." if len(classes) > 12 else "")), stacklevel=4)


def place_qdq(module: Module, quantization_mode: str = "full",
              quantization_spec: Optional[QuantizationSpec] = None,
              custom_qdq_cases: Optional[List] = None, *,
              propagate: bool = True, calibration_data=None,
              calibration_method: str = "max", percentile: float = 99.99,
              batch_size: Optional[int] = None, weight_bits: int = 8,
              activation_bits: int = 8, weight_format: str = "",
              activation_format: str = "", block_size: int = 0,
              weight_scale: str = "auto", awq: bool = False,
              gptq: bool = False,
              smooth_alpha=None, kv_cache: Optional[str] = None,
              target: str = "tensorrt",
              check_ranges: bool = True, bias_correction: bool = False,
              keras_model=None) -> str:
    """Places Q/DQ pairs in `module`, in place, with every setting
    quantize_model has for it, and, given `calibration_data`, calibrates;
    returns insert-qdq's report. `keras_model`, the Keras model `module`
    was imported from, is what Python cases receive."""
    check_quantization_mode(quantization_mode)
    if (quantization_spec is not None
            and not isinstance(quantization_spec, QuantizationSpec)):
        raise TypeError("quantization_spec must be a QuantizationSpec, got %s"
                        % type(quantization_spec).__name__)
    names, python_cases = _split_cases(custom_qdq_cases)

    spec = quantization_spec
    if quantization_mode == "partial" and spec is None:
        # The toolkit's partial mode quantizes what the cases return when
        # the user gives no spec; without cases there is nothing to do.
        if not names and not python_cases:
            raise ValueError("quantization_mode='partial' quantizes only the "
                             "layers a QuantizationSpec names: pass "
                             "quantization_spec")
        spec = QuantizationSpec()

    if quantization_mode == "full":
        _record_default_rows(module)
    _record_python_cases(module, python_cases, quantization_spec,
                         keras_model)

    with tempfile.TemporaryDirectory(prefix="quant_qdq_") as folder:
        data = []
        if calibration_data is not None:
            check_calibration_settings(calibration_method, percentile, _BINS,
                                       batch_size, allow_auto=True)
            data = data_paths(calibration_data, folder)
        spec_path = ""
        if spec is not None:
            spec_path = os.path.join(folder, "quantization_spec.json")
            with open(spec_path, "w") as f:
                f.write(spec.to_json_lines())
        report_path = os.path.join(folder, "report.txt")
        # Messages about the spec name it as the user knows it.
        module.quantize(
            cases=names, spec_path=spec_path, spec_name="QuantizationSpec",
            mode=quantization_mode, report_path=report_path,
            propagate=bool(propagate), activation_bits=int(activation_bits),
            weight_bits=int(weight_bits), weight_format=str(weight_format),
            activation_format=str(activation_format),
            weight_block_size=int(block_size),
            weight_scale=str(weight_scale), awq=bool(awq),
            gptq=bool(gptq),
            smooth_alpha="" if smooth_alpha is None else str(smooth_alpha),
            kv_cache=kv_cache or "", target=str(target),
            attention_max_sequence=_attention_max_sequence(custom_qdq_cases),
            data=data, method=calibration_method,
            percentile=float(percentile), bins=_BINS,
            batch_size=int(batch_size or 0), check_ranges=bool(check_ranges),
            bias_correction=bool(bias_correction))
        with open(report_path, errors="backslashreplace") as f:
            return f.read()


def insert_qdq(module: Module, quantization_mode: str = "full",
               quantization_spec: Optional[QuantizationSpec] = None,
               custom_qdq_cases: Optional[List] = None, *,
               propagate: bool = True) -> str:
    """Places Q/DQ pairs in `module`, in place, as quantize_model does, and
    returns insert-qdq's report: one line per layer saying what it got and
    which rule decided."""
    return place_qdq(module, quantization_mode, quantization_spec,
                     custom_qdq_cases, propagate=propagate)


def qat_placement(module: Module, quantization_mode, quantization_spec,
                  custom_qdq_cases, weight_bits: int, activation_bits: int,
                  keras_model=None) -> Dict[str, Tuple[List[int], bool]]:
    """Where quantization-aware training puts fake quantization:
    {layer: (quantized input positions, weight quantized)} for the layers
    with either, as insert-qdq places Q/DQ with propagation off (each pair
    where its reader is). `module` gets the pairs; the answer is read from
    its layer graph after insertion."""
    place_qdq(module, quantization_mode, quantization_spec, custom_qdq_cases,
              propagate=False, weight_bits=weight_bits,
              activation_bits=activation_bits, keras_model=keras_model)
    return {layer.name: (list(layer.quantized_inputs),
                         layer.weight_quantized)
            for layer in Graph(module)
            if layer.quantized_inputs or layer.weight_quantized}
