"""quantize_model: NVIDIA's toolkit entry point over quant-qdq.

The model is imported into MLIR, Python cases record their choices on its
layers, and the qdq-quantize pipeline (the one `qdq-opt --qdq-quantize`
runs) places the Q/DQ pairs (user spec, then cases, then the default table)
and, when data is given, calibrates; the result is exported back to ONNX.
Everything runs in memory, in the C++ libraries.
"""

import os
import tempfile
from typing import List, Optional

from .calibration import (CalibrationTable, _check_settings, _data_paths,
                          apply_table)
from .custom_qdq_cases import CustomQDQInsertionCase, applies_by_name
from .graph import Graph
from .ir import Module, export_onnx, load_module, save_onnx
from .spec import QuantizationSpec

__all__ = ["quantize_model", "insert_qdq"]

_MODES = ("full", "partial")


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


def insert_qdq(module: Module, quantization_mode: str = "full",
               quantization_spec: Optional[QuantizationSpec] = None,
               custom_qdq_cases: Optional[List] = None, *,
               propagate: bool = True) -> str:
    """Places Q/DQ pairs in `module`, in place, as quantize_model does, and
    returns insert-qdq's report: one line per layer saying what it got and
    which rule decided."""
    return _quantize(module, quantization_mode, quantization_spec,
                     custom_qdq_cases, propagate=propagate)


def _quantize(module: Module, quantization_mode: str,
              quantization_spec: Optional[QuantizationSpec],
              custom_qdq_cases: Optional[List], *, propagate: bool,
              calibration_data=None, calibration_method: str = "max",
              percentile: float = 99.99, batch_size: Optional[int] = None,
              weight_bits: int = 8, activation_bits: int = 8,
              weight_format: str = "", activation_format: str = "",
              block_size: int = 0, awq: bool = False) -> str:
    """Python cases record their choices, then the qdq-quantize pipeline
    (the one qdq-opt runs) places Q/DQ and, given data, calibrates."""
    if quantization_mode not in _MODES:
        raise ValueError("quantization_mode must be 'full' or 'partial', "
                         "got %r" % (quantization_mode,))
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

    # Every case sees the graph as imported, and the user's spec.
    specs = []
    if python_cases:
        # A copy: a case cannot change the module being quantized.
        graph = Graph(module.clone())
        for case in python_cases:
            result = case.case(graph, quantization_spec)
            if result is None:
                continue
            if not isinstance(result, QuantizationSpec):
                raise TypeError("%s.case() must return a QuantizationSpec, "
                                "got %s" % (type(case).__name__,
                                            type(result).__name__))
            specs.append((type(case).__name__, result))
    for case_name, case_spec in specs:
        if len(case_spec):
            module.record_case_spec(case_name, case_spec._to_entry_lines())

    bins = 2048  # the calibrate pass's default
    with tempfile.TemporaryDirectory(prefix="quant_qdq_") as folder:
        data = []
        if calibration_data is not None:
            _check_settings(calibration_method, percentile, bins, batch_size)
            data = _data_paths(calibration_data, folder)
        spec_path = ""
        if spec is not None:
            spec_path = os.path.join(folder, "quantization_spec.json")
            with open(spec_path, "w") as f:
                f.write(spec._to_entry_lines())
        report_path = os.path.join(folder, "report.txt")
        # Messages about the spec name it as the user knows it.
        module.quantize(
            cases=names, spec_path=spec_path, spec_name="QuantizationSpec",
            mode=quantization_mode, report_path=report_path,
            propagate=bool(propagate), activation_bits=int(activation_bits),
            weight_bits=int(weight_bits), weight_format=str(weight_format),
            activation_format=str(activation_format),
            weight_block_size=int(block_size), awq=bool(awq),
            attention_max_sequence=_attention_max_sequence(custom_qdq_cases),
            data=data, method=calibration_method,
            percentile=float(percentile), bins=bins,
            batch_size=int(batch_size or 0))
        with open(report_path, errors="backslashreplace") as f:
            return f.read()


# How quantization-aware training tracks activation ranges: the toolkit's
# last value, or TFMOT's moving average.
RANGE_TRACKING = ("last_value", "moving_average")


def _check_range_tracking(range_tracking: str) -> None:
    if range_tracking not in RANGE_TRACKING:
        raise ValueError("range_tracking must be one of %s, got %r"
                         % (", ".join(RANGE_TRACKING), range_tracking))


def _qat_placement(module: Module, quantization_mode, quantization_spec,
                   custom_qdq_cases, weight_bits: int,
                   activation_bits: int):
    """Where quantization-aware training puts fake quantization:
    {layer: (quantized input positions, weight quantized)}, as insert-qdq
    places Q/DQ with propagation off (each pair where its reader is)."""
    report = _quantize(module, quantization_mode, quantization_spec,
                       custom_qdq_cases, propagate=False,
                       weight_bits=weight_bits,
                       activation_bits=activation_bits)
    rows = {}
    for line in report.splitlines()[1:]:
        if line.startswith("#") or not line.strip():
            continue
        name, _, inputs, weight, _ = line.split(None, 4)
        rows[name] = ([int(i) for i in inputs.strip("[]").split(",") if i],
                      weight == "yes")
    return rows


def quantize_model(model, quantization_mode: str = "full",
                   quantization_spec: Optional[QuantizationSpec] = None,
                   custom_qdq_cases: Optional[List] = None, *,
                   example_input=None, opset_version: int = 13,
                   fold_batch_norm: bool = False, propagate: bool = True,
                   calibration_data=None, calibration_method: str = "max",
                   calibration_table: Optional[CalibrationTable] = None,
                   percentile: float = 99.99, batch_size: Optional[int] = None,
                   integer_weights: bool = True,
                   activation_amax: float = 6.0,
                   report: Optional[str] = None,
                   output: Optional[str] = None,
                   external_data: str = "auto",
                   weight_bits: int = 8, activation_bits: int = 8,
                   weight_format: Optional[str] = None,
                   activation_format: Optional[str] = None,
                   block_size: int = 0, awq: bool = False,
                   qat: bool = False, range_tracking: str = "last_value"):
    """Inserts Q/DQ nodes in `model` and returns an onnx.ModelProto, or,
    with `output`, writes it to that file and returns the path. With
    `qat=True` (Keras models and torch modules), returns a model of the
    same framework to train instead, with fake quantization at the same
    places (keras_qat.py, torch_qat.py); export_qat_model /
    export_qat_module export it once trained.

    Args:
      model: an ONNX file path, an onnx.ModelProto, serialized ONNX bytes, a
        quant_qdq Module, a keras.Model or Keras file (.keras, .h5,
        SavedModel folder), or a torch.nn.Module with `example_input`.
      quantization_mode: "full" (default table, overridden by the spec) or
        "partial" (only the layers the spec, or the cases, name).
      quantization_spec: a QuantizationSpec; it always wins over the cases.
      custom_qdq_cases: CustomQDQInsertionCase objects (library cases such as
        ResNetV1QDQCase(), or subclasses), or registered case names and
        .pdll/.mlir case files.
      example_input: the input torch.onnx.export traces a torch model with.
      opset_version: the ONNX opset of that export.
      fold_batch_norm: fold BatchNormalization into the convolution before
        it first, so that weight scales see the weights that will run.
      propagate: move Q/DQ pairs through pass-through layers.
      calibration_data: data to calibrate activation scales on (an array,
        an iterable of batches, or .npy paths); see calibration.py.
      calibration_method: max, percentile, entropy, mse, last-value or
        moving-average.
      calibration_table: a CalibrationTable to apply instead of data.
      percentile, batch_size: calibration settings; batch_size None: the
        engine's choice (docs/Calibration.md), 32 for the QAT models'
        own calibration passes.
      integer_weights: store weights as int8 initializers (default), or,
        False, as float initializers + QuantizeLinear.
      activation_amax: the range assumed by activations left uncalibrated.
      report: a path to write insert-qdq's per-layer report to.
      output: a path to write the model to instead of returning it: the
        way for models over protobuf's 2 GiB, whose tensors then go to
        ``<output>.data``.
      external_data: with `output`: "auto" (external data when the input
        model had it, or the model is over 2 GiB), "always" or "never".
      weight_bits, activation_bits: quantizer widths (8: TensorRT's INT8).
      weight_format: "int8", "int4" (sets weight_bits) or "fp8" (E4M3FN).
      activation_format: "int8", "int16" (sets activation_bits), "fp8" or
        "none" (weight-only: no activation Q/DQ).
      block_size: weights get one scale per block of this many input
        channels instead of one per output channel (0). Int4 weight-only
        for TensorRT: weight_format="int4", activation_format="none",
        block_size=128 (opset-21 blocked DequantizeLinear).
      awq: scale the weights of weight-only dense layers by their inputs'
        magnitudes on `calibration_data` first (AWQ-lite: docs/
        Calibration.md), which the model then divides back with a Mul.
      qat: return a Keras model for quantization-aware training; its
        ranges start at the maximum seen on `calibration_data` when given.
      range_tracking: with `qat`, how activation ranges follow training:
        "last_value" (the toolkit's) or "moving_average" (TFMOT's).
    """
    if batch_size is not None and batch_size < 1:
        raise ValueError("batch_size must be positive (or None to let "
                         "calibration choose), got %r" % (batch_size,))
    if qat:
        if weight_format or activation_format or block_size or awq:
            raise ValueError("with qat=True, give widths as weight_bits and "
                             "activation_bits; weight_format, "
                             "activation_format, block_size and awq are "
                             "for export")
        if calibration_method != "max" or calibration_table is not None:
            raise ValueError("with qat=True, calibration_data sets the "
                             "starting ranges by their maximum; "
                             "calibration_method and calibration_table do "
                             "not apply")
        from .ir import _is_torch_module
        if _is_torch_module(model):
            from .torch_qat import quantize_torch_model
            if example_input is None:
                raise ValueError("a torch.nn.Module is traced and exported "
                                 "on the way: give example_input")
            return quantize_torch_model(
                model, example_input, quantization_mode, quantization_spec,
                custom_qdq_cases, weight_bits=weight_bits,
                activation_bits=activation_bits,
                range_tracking=range_tracking,
                calibration_data=calibration_data,
                opset_version=opset_version, batch_size=batch_size or 32)
        from .keras_qat import quantize_keras_model
        return quantize_keras_model(
            model, quantization_mode, quantization_spec, custom_qdq_cases,
            weight_bits=weight_bits, activation_bits=activation_bits,
            range_tracking=range_tracking, calibration_data=calibration_data,
            batch_size=batch_size or 32)
    if calibration_data is not None and calibration_table is not None:
        raise ValueError("give calibration_data or calibration_table, "
                         "not both")
    if awq and calibration_data is None:
        raise ValueError("awq=True measures the layers' inputs: give "
                         "calibration_data")
    module = load_module(model, example_input=example_input,
                         opset_version=opset_version)
    # Folded first, so that cases see the layers that will run.
    if fold_batch_norm:
        module.run_pipeline("qdq-fold-batch-norm")
    text = _quantize(module, quantization_mode, quantization_spec,
                     custom_qdq_cases, propagate=propagate,
                     calibration_data=calibration_data,
                     calibration_method=calibration_method,
                     percentile=percentile, batch_size=batch_size,
                     weight_bits=weight_bits,
                     activation_bits=activation_bits,
                     weight_format=weight_format or "",
                     activation_format=activation_format or "",
                     block_size=block_size, awq=awq)
    if report is not None:
        with open(report, "w") as f:
            f.write(text)
    if calibration_table is not None:
        apply_table(module, calibration_table)
    if output is not None:
        return save_onnx(module, output, integer_weights=integer_weights,
                         activation_amax=activation_amax,
                         external_data=external_data)
    return export_onnx(module, integer_weights=integer_weights,
                       activation_amax=activation_amax)
