"""quant_qdq.apply_number_formats: TensorQuant's maps as dictionaries, and
the rounded network's numbers recomputed with ONNX Runtime on a copy of the
model whose initializers NumPy rounded."""

import math

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import numpy_helper

import quant_qdq
from quant_qdq import QuantQDQError


def _run(model, x):
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0].astype(np.float64)


def _nearest(w, bits, fraction):
    """TensorQuant's nearest: halves away from zero, saturating."""
    v = w.astype(np.float64) * 2.0 ** fraction
    r = np.sign(v) * np.floor(np.abs(v) + 0.5)
    half = 2.0 ** (bits - 1)
    return (np.clip(r, -half, half - 1) / 2.0 ** fraction).astype(np.float32)


def test_weights_round_as_tensorquant(block_model, calib_data):
    m = quant_qdq.apply_number_formats(block_model, weights="nearest,4,2")
    # Kernel and bias of three convolutions and the classifier.
    assert str(m).count("quant_qdq.round_to_format") == 8
    rounded = onnx.ModelProto()
    rounded.CopyFrom(block_model)
    for init in rounded.graph.initializer:
        init.CopyFrom(numpy_helper.from_array(
            _nearest(numpy_helper.to_array(init), 4, 2), init.name))
    x = calib_data[:1]
    ref, got = _run(block_model, x), _run(rounded, x)
    sqnr = 10 * math.log10((ref ** 2).sum() / ((ref - got) ** 2).sum())
    result = quant_qdq.compare(m, inputs=x, layers=0)
    assert result.outputs[0].sqnr_db == pytest.approx(sqnr, abs=0.01)


def test_maps_decide_in_order(block_model):
    """The first key a name contains decides; None keeps the layer."""
    m = quant_qdq.apply_number_formats(
        block_model,
        weights={"conv1": None, "conv": "ternary", "fc": "binary,0.5"},
        outputs={"relu": "fp16"})
    text = str(m)
    assert text.count("<ternary>") == 4         # conv2, conv3
    assert text.count("<binary, marginal = 5.000000e-01>") == 2
    assert text.count("<half>") == 3            # relu1, relu2, relu3
    assert text.count("round_to_format") == 9


def test_export_refuses_formats(block_model):
    m = quant_qdq.apply_number_formats(block_model, outputs="logarithmic")
    with pytest.raises(QuantQDQError, match="has no ONNX form"):
        quant_qdq.export_onnx(m)


def test_mistakes(block_model, tmp_path):
    with pytest.raises(ValueError, match="needs weights=, outputs="):
        quant_qdq.apply_number_formats(block_model)
    with pytest.raises(TypeError, match="from layer-name substrings"):
        quant_qdq.apply_number_formats(block_model, weights={"conv": 8})
    with pytest.raises(QuantQDQError, match="unknown quantizer 'quaternary'"):
        quant_qdq.apply_number_formats(block_model,
                                       weights={"conv": "quaternary"})
    bad = tmp_path / "map.json"
    bad.write_text('{"conv": "nearest,16"}')
    with pytest.raises(QuantQDQError, match="map.json:1:10"):
        quant_qdq.apply_number_formats(block_model, outputs=bad)
