"""Quantization-aware training of Keras models, at quant-qdq's placements.

    qat = quantize_model(model, custom_qdq_cases=[ResNetV1QDQCase()],
                         qat=True)                    # a keras.Model
    qat.compile(...); qat.fit(...)
    onnx_model = export_qat_model(qat)   # QDQ ONNX with the learned ranges

The placement is insert-qdq's (mode, QuantizationSpec, cases), decided on
the imported model; the returned model is the user's, rebuilt layer by
layer, with

- a FakeQuantize layer on every tensor that a layer reads quantized (one
  per tensor, shared by its quantized readers: the horizontal fusion
  TensorRT wants), and
- each layer whose kernel is quantized wrapped in QuantizeWeights, which
  runs it with the kernel fake-quantized per output channel.

Both are qat_layers.py's, and behave as the seed toolkit's wrappers do.

After training, export_qat_model imports the trained model as it is: every
FakeQuantize becomes a Q/DQ pair with the learned range, every
QuantizeWeights a per-channel weight Q/DQ, placement unchanged.

Keras 3 and tf.keras (tf-keras) models alike.
"""

from .._options import RANGE_TRACKING
from ..ir import export_onnx, save_onnx
from ..placement import qat_placement
from .graph_walk import fresh_inputs, walk_graph
from .importer import import_keras
from .models import is_keras_model, keras_flavour
from .qat_layers import (KERNEL_RANGE_AXES, FakeQuantize, QuantizeWeights,
                         fake_quantize, layers_of)

__all__ = ["FakeQuantize", "QuantizeWeights", "fake_quantize",
           "quantize_keras_model", "calibrate_ranges", "export_qat_model",
           "RANGE_TRACKING"]


def _clone(layer):
    """A new layer with `layer`'s configuration (weights copied once it is
    built)."""
    return layer.__class__.from_config(layer.get_config())


def calibrate_ranges(qat, data, batch_size: int = 32):
    """Sets each FakeQuantize's range to the largest |x| it sees on `data`
    (an array of inputs, or a list of arrays for several inputs) in the
    float model, quantization off, as post-training calibration reads
    ranges: QAT then starts from those instead of 6. Streams the data in
    batches; only the running maxima are kept."""
    k, fake_quantize_layer, quantize_weights_layer, ops = layers_of(keras_flavour(qat))
    probes = [l for l in qat.layers if isinstance(l, fake_quantize_layer)]
    if not probes:
        return
    quantizers = [l for l in qat.layers
                  if isinstance(l, (fake_quantize_layer,
                                    quantize_weights_layer))]
    for layer in quantizers:
        layer.quantizing = False
    try:
        reader = k.Model(qat.inputs, [ops.max(ops.abs(p.input))
                                      for p in probes])
        maxima = _running_maxima(reader, len(probes), data, batch_size)
    finally:
        for layer in quantizers:
            layer.quantizing = True
    for probe, amax in zip(probes, maxima):
        probe.amax.assign(float(amax))


def _running_maxima(reader, count_outputs, data, batch_size):
    """The largest of each of `reader`'s outputs over `data`'s batches."""
    import numpy as np
    arrays = data if isinstance(data, (list, tuple)) else [data]
    count = len(arrays[0])
    if count == 0:
        raise ValueError("calibration data holds no inputs")
    maxima = np.zeros(count_outputs, np.float32)
    for start in range(0, count, batch_size):
        batch = [np.asarray(a[start:start + batch_size], np.float32)
                 for a in arrays]
        seen = reader(batch, training=False)
        seen = seen if isinstance(seen, (list, tuple)) else [seen]
        maxima = np.maximum(maxima, [float(v) for v in seen])
    return maxima


def quantize_keras_model(model, quantization_mode: str = "full",
                         quantization_spec=None, custom_qdq_cases=None, *,
                         weight_bits: int = 8, activation_bits: int = 8,
                         range_tracking: str = "last_value",
                         ema_decay: float = 0.999, calibration_data=None,
                         batch_size: int = 32):
    """A copy of `model` (Keras 3 or tf.keras) ready for quantization-aware
    training,
    with fake quantization where insert-qdq places Q/DQ for the given mode,
    spec and cases (see the module's docstring). The original model is
    left untouched; the copy starts from its weights, and from ranges
    calibrated on `calibration_data` when given (calibrate_ranges)."""
    if not is_keras_model(model):
        raise TypeError("quantization-aware training takes a keras.Model "
                        "(Keras 3 or tf.keras), got %s.%s"
                        % (type(model).__module__, type(model).__name__))
    k, fake_quantize_layer, quantize_weights_layer, _ = layers_of(keras_flavour(model))
    module = import_keras(model)
    placement = qat_placement(module, quantization_mode, quantization_spec,
                              custom_qdq_cases, weight_bits, activation_bits,
                              keras_model=model)
    # One FakeQuantize per quantized tensor, made when first read.
    quantized = {}

    def fake_quantized(tensor, source_name):
        key = id(tensor)
        if key not in quantized:
            quantized[key] = fake_quantize_layer(
                activation_bits, range_tracking=range_tracking,
                ema_decay=ema_decay, name=source_name + "_quantize")(tensor)
        return quantized[key]

    producers = {}

    def visit(layer, node, inputs):
        positions, weight = placement.get(layer.name, ([], False))
        args = list(inputs)
        for i in positions:
            if i < len(args):
                args[i] = fake_quantized(args[i], producers[id(args[i])])
        clone = _clone(layer)
        runner = (quantize_weights_layer(clone, weight_bits)
                  if weight and type(layer).__name__ in KERNEL_RANGE_AXES
                  else clone)
        outputs = runner(args if len(args) > 1 else args[0])
        clone.set_weights(layer.get_weights())
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) \
            else [outputs]
        for tensor in outputs:
            producers[id(tensor)] = layer.name
        return outputs

    inputs = fresh_inputs(model, k)
    for new in inputs:
        producers[id(new)] = new._keras_history[0].name
    outputs = walk_graph(model, inputs, visit)
    qat = k.Model(inputs if len(inputs) > 1 else inputs[0],
                  outputs if len(outputs) > 1 else outputs[0],
                  name=model.name + "_qat")
    if calibration_data is not None:
        calibrate_ranges(qat, calibration_data, batch_size)
    return qat


def export_qat_model(model, *, output=None, integer_weights: bool = True,
                     external_data: str = "auto"):
    """QDQ ONNX of a model quantize_keras_model made (trained or not): its
    FakeQuantize layers become Q/DQ pairs with their tracked ranges, its
    QuantizeWeights per-channel weight Q/DQ. Returns an onnx.ModelProto,
    or writes `output` and returns its path."""
    module = import_keras(model)
    if output is not None:
        return save_onnx(module, output, integer_weights=integer_weights,
                         external_data=external_data)
    return export_onnx(module, integer_weights=integer_weights)
