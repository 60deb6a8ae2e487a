"""quantize_model: NVIDIA's toolkit entry point over quant-qdq.

The top of the package: loads the model (loading.py), places Q/DQ and
calibrates (placement.py), and exports ONNX; with ``qat=True`` it hands the
model to the Keras or torch quantization-aware training builder instead.
"""

from typing import List, Optional

from .calibration import CalibrationTable, apply_table
from .ir import export_onnx, save_onnx
from .loading import load_keras, load_module
from .placement import insert_qdq, place_qdq
from .precision import auto_precision
from .spec import QuantizationSpec
from .torch.export import is_torch_module

__all__ = ["quantize_model", "insert_qdq"]


def quantize_model(model, quantization_mode: str = "full",
                   quantization_spec: Optional[QuantizationSpec] = None,
                   custom_qdq_cases: Optional[List] = None, *,
                   example_input=None, opset_version: int = 13,
                   dynamic_axes="batch", fold_batch_norm: bool = False,
                   cross_layer_equalization: bool = False,
                   propagate: bool = True,
                   calibration_data=None, calibration_method: str = "max",
                   calibration_table: Optional[CalibrationTable] = None,
                   percentile: float = 99.99, batch_size: Optional[int] = None,
                   integer_weights: bool = True,
                   activation_amax: float = 6.0,
                   report: Optional[str] = None,
                   output: Optional[str] = None,
                   external_data: str = "auto",
                   output_opset: int = 0, matmul_nbits: bool = False,
                   weight_bits: int = 8, activation_bits: int = 8,
                   weight_format: Optional[str] = None,
                   activation_format: Optional[str] = None,
                   block_size: int = 0, weight_scale: str = "auto",
                   awq: bool = False, gptq: bool = False, smooth_alpha=None,
                   kv_cache: Optional[str] = None,
                   target: str = "tensorrt",
                   check_ranges: bool = True, bias_correction: bool = False,
                   accuracy_target: Optional[float] = None,
                   validation_data=None, weight_formats=("int8",),
                   activation_formats=("int8", "float"),
                   qat: bool = False, range_tracking: str = "last_value"):
    """Inserts Q/DQ nodes in `model` and returns an onnx.ModelProto, or,
    with `output`, writes it to that file and returns the path. With
    `qat=True` (Keras models and torch modules), returns a model of the
    same framework to train instead, with fake quantization at the same
    places (quant_qdq.keras.qat, quant_qdq.torch.qat); export_qat_model /
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
      dynamic_axes: the sizes that export leaves free: "batch" (the first
        axis of every input and output, the default), None (none: every
        size the example's) or torch.onnx.export's dict, by the names
        `input`/`input_N` and `output`/`output_N`.
      fold_batch_norm: fold BatchNormalization into the convolution before
        it first, so that weight scales see the weights that will run.
      cross_layer_equalization: after folding batch normalization, rescale
        consecutive layers' channels so that one scale per weight tensor
        fits them (qdq-equalize, docs/Calibration.md); the float model
        computes the same. Helps per-tensor weight scales (MobileNet's
        depthwise convolutions).
      propagate: move Q/DQ pairs through pass-through layers.
      calibration_data: data to calibrate activation scales on (an array,
        an iterable of batches, or .npy paths); see calibration.py.
      calibration_method: max, percentile, entropy, mse, last-value,
        moving-average, or auto (per tensor, the range among the first four
        methods' that costs the output least: docs/Calibration.md).
      check_ranges: replace percentile's, entropy's or mse's ranges by
        auto's where they cost over 0.5 dB of output SQNR against max's
        on the calibration data (with a warning).
      bias_correction: subtract from each convolution's and dense layer's
        bias the mean output shift its weight's rounding adds on
        `calibration_data` (qdq-bias-correction, docs/Calibration.md).
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
      output_opset: the default-domain opset of the QDQ model (0: the
        input's, raised to what its Q/DQ nodes need: 13, 19 for FP8, 21 for
        int4 and blocks); the nodes kept from the input are converted to it
        by ONNX's version converter.
      matmul_nbits: write dense layers with int4 weights in blocks
        (weight_format="int4", block_size 16, 32, ...) as ONNX Runtime's
        com.microsoft MatMulNBits, the form onnxruntime-genai runs.
      weight_bits, activation_bits: quantizer widths (8: TensorRT's INT8).
      weight_format: "int8", "int4" (sets weight_bits) or "fp8" (E4M3FN).
      activation_format: "int8", "int16" (sets activation_bits), "fp8" or
        "none" (weight-only: no activation Q/DQ).
      block_size: weights get one scale per block of this many input
        channels instead of one per output channel (0). Int4 weight-only
        for TensorRT: weight_format="int4", activation_format="none",
        block_size=128 (opset-21 blocked DequantizeLinear).
      weight_scale: how weight scales are chosen: "max" (max|w| / qmax,
        narrow range: TensorRT's and Model Optimizer's), "mse" (the full
        signed range, each scale group's clipping of least rounding error),
        or "auto" (mse at 4 bits or fewer, max above; docs/Quantizers.md).
      awq: scale the weights of weight-only dense layers by their inputs'
        magnitudes on `calibration_data` first (AWQ-lite: docs/
        Calibration.md), which the model then divides back with a Mul.
      smooth_alpha: SmoothQuant for layers whose input and weight are
        both quantized (W8A8): divide their inputs' outlier channels by
        s = max|x|^alpha / max|w|^(1 - alpha), folded into the preceding
        normalization where it can, and multiply the weights by s; alpha
        in [0, 1] or "auto" (chosen per layer group), None: off. Needs
        `calibration_data` (docs/Calibration.md).
      kv_cache: "int8" or "fp8" quantizes a decoder's key/value cache
        (its present_* outputs, per tensor, calibrated on
        `calibration_data`); None keeps it in float.
      target: the runtime the Q/DQ placement is for: "tensorrt" (its
        rules: inputs of the layers TensorRT fuses, symmetric int8) or
        "onnxruntime" (u8 asymmetric activations, and the outputs of
        convolutions, additions and poolings quantized too, so that ONNX
        Runtime's CPU provider runs them as QLinearConv, QLinearAdd...;
        docs/InsertQDQ.md#runtime-targets).
      gptq: round the quantized weights of dense layers (int4 or int8, per
        channel or in blocks) so that their outputs on `calibration_data`
        change least (GPTQ: docs/Calibration.md), after awq's scales.
      accuracy_target: an output SQNR in dB to reach on `validation_data`
        (default: `calibration_data`) with the cheapest mix of
        `weight_formats` and `activation_formats` ("int4", "int8",
        "int16", "fp8", "float"), chosen per Q/DQ pair after calibration
        (auto_precision, docs/Accuracy.md); its report goes to `report`.
      qat: return a Keras model for quantization-aware training; its
        ranges start at the maximum seen on `calibration_data` when given.
      range_tracking: with `qat`, how activation ranges follow training:
        "last_value" (the toolkit's) or "moving_average" (TFMOT's).
    """
    if batch_size is not None and batch_size < 1:
        raise ValueError("batch_size must be positive (or None to let "
                         "calibration choose), got %r" % (batch_size,))
    if qat:
        if (weight_format or activation_format or block_size or awq or gptq
                or smooth_alpha is not None or kv_cache or bias_correction
                or cross_layer_equalization or weight_scale != "auto"):
            raise ValueError("with qat=True, give widths as weight_bits and "
                             "activation_bits; weight_format, "
                             "activation_format, block_size, weight_scale, "
                             "awq, gptq, smooth_alpha, kv_cache, "
                             "bias_correction and cross_layer_equalization "
                             "are for export")
        if target != "tensorrt":
            raise ValueError("target=%r places Q/DQ for export; "
                             "quantization-aware training places fake "
                             "quantization as for TensorRT" % (target,))
        if accuracy_target is not None:
            raise ValueError("accuracy_target chooses formats for export; "
                             "with qat=True, train instead")
        if calibration_method != "max" or calibration_table is not None:
            raise ValueError("with qat=True, calibration_data sets the "
                             "starting ranges by their maximum; "
                             "calibration_method and calibration_table do "
                             "not apply")
        if is_torch_module(model):
            # The training builders import their framework: only here.
            from .torch.qat import quantize_torch_model
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
        from .keras.qat import quantize_keras_model
        return quantize_keras_model(
            model, quantization_mode, quantization_spec, custom_qdq_cases,
            weight_bits=weight_bits, activation_bits=activation_bits,
            range_tracking=range_tracking, calibration_data=calibration_data,
            batch_size=batch_size or 32)
    if calibration_data is not None and calibration_table is not None:
        raise ValueError("give calibration_data or calibration_table, "
                         "not both")
    if cross_layer_equalization and calibration_table is not None:
        raise ValueError("cross_layer_equalization rescales the activations "
                         "a calibration_table describes: calibrate on "
                         "calibration_data instead")
    for name, asked in (("awq=True", awq), ("gptq=True", gptq),
                        ("bias_correction=True", bias_correction),
                        ("smooth_alpha", smooth_alpha is not None)):
        if asked and calibration_data is None:
            raise ValueError("%s measures the layers' inputs: give "
                             "calibration_data" % name)
    if accuracy_target is not None and (
            validation_data is None and calibration_data is None):
        raise ValueError("accuracy_target is measured on data: give "
                         "validation_data (or calibration_data)")
    keras_model = None
    loaded = load_keras(model)
    if loaded is not None:
        module, keras_model = loaded
    else:
        module = load_module(model, example_input=example_input,
                             opset_version=opset_version,
                             dynamic_axes=dynamic_axes)
    # Folded first, so that Graph cases see the layers that will run (a
    # Keras case sees the keras.Model, folded or not).
    if fold_batch_norm or cross_layer_equalization:
        module.run_pipeline("qdq-fold-batch-norm")
    if cross_layer_equalization:
        module.run_pipeline("qdq-equalize")
    text = place_qdq(module, quantization_mode, quantization_spec,
                     custom_qdq_cases, propagate=propagate,
                     calibration_data=calibration_data,
                     calibration_method=calibration_method,
                     percentile=percentile, batch_size=batch_size,
                     weight_bits=weight_bits,
                     activation_bits=activation_bits,
                     weight_format=weight_format or "",
                     activation_format=activation_format or "",
                     block_size=block_size, weight_scale=weight_scale,
                     awq=awq, gptq=gptq,
                     smooth_alpha=smooth_alpha, kv_cache=kv_cache,
                     target=target, check_ranges=check_ranges,
                     bias_correction=bias_correction,
                     keras_model=keras_model)
    if calibration_table is not None:
        apply_table(module, calibration_table)
    if accuracy_target is not None:
        text += auto_precision(
            module, calibration_data if validation_data is None
            else validation_data, target_sqnr=accuracy_target,
            weight_formats=weight_formats,
            activation_formats=activation_formats, batch_size=batch_size)
    if report is not None:
        with open(report, "w") as f:
            f.write(text)
    if output is not None:
        return save_onnx(module, output, integer_weights=integer_weights,
                         activation_amax=activation_amax,
                         external_data=external_data, opset=output_opset,
                         matmul_nbits=matmul_nbits)
    return export_onnx(module, integer_weights=integer_weights,
                       activation_amax=activation_amax, opset=output_opset,
                       matmul_nbits=matmul_nbits)
