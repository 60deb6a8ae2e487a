"""quant_qdq.compare: what quantization did to the numbers, recomputed
with ONNX Runtime running both networks (its graph rewrites off, so that
Q/DQ compute what they say)."""

import math

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import quant_qdq
from quant_qdq import QuantQDQError


def _run(model, x):
    options = ort.SessionOptions()
    options.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_BASIC)
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0].astype(np.float64)


@pytest.fixture
def calibrated(block_model, calib_data):
    return quant_qdq.quantize_model(block_model,
                                    calibration_data=calib_data)


def test_against_the_float_model(block_model, calibrated, calib_data):
    x = calib_data[:1]
    result = quant_qdq.compare(calibrated, block_model, x, layers=3)
    (out,) = result.outputs
    ref, got = _run(block_model, x), _run(calibrated, x)
    sqnr = 10 * math.log10((ref ** 2).sum() / ((ref - got) ** 2).sum())
    assert out.name == "y" and out.shape == (1, 4)
    assert out.sqnr_db == pytest.approx(sqnr, abs=0.01)
    assert out.max_error == pytest.approx(np.abs(ref - got).max(), rel=1e-3)
    assert out.top1_agreeing == int(ref.argmax() == got.argmax())
    assert out.rows == 1
    # Every layer both compute, and the text lists the three worst.
    assert [row.layer for row in result.layers][:2] == ["conv1", "relu1"]
    worst = result.worst_layers(3)
    assert len(worst) == 3
    assert worst[0].own_sqnr_db <= worst[-1].own_sqnr_db
    assert "layers adding the most error (3 of %d" % len(result.layers) \
        in str(result)
    # The first layer reads the exact input: all its error is its own.
    conv1 = result.layers[0]
    assert conv1.own_sqnr_db == pytest.approx(conv1.sqnr_db)


def test_a_fixed_batch_takes_its_samples_in_runs(block_model, calibrated,
                                                 calib_data):
    """The block is exported at batch 1: its 16 samples run in 16 runs,
    and the figures are those of all 16, which ONNX Runtime computes here
    one sample at a time, its graph rewrites off (its basic ones change the
    Q/DQ arithmetic: 40.41 dB against 40.72 as written)."""
    result = quant_qdq.compare(calibrated, block_model, calib_data, layers=0)
    (out,) = result.outputs

    def run_each(model):
        options = ort.SessionOptions()
        options.graph_optimization_level = (
            ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
        session = ort.InferenceSession(model.SerializeToString(), options,
                                       providers=["CPUExecutionProvider"])
        return np.concatenate([session.run(None, {"x": x[None]})[0]
                               for x in calib_data]).astype(np.float64)

    ref, got = run_each(block_model), run_each(calibrated)
    sqnr = 10 * math.log10((ref ** 2).sum() / ((ref - got) ** 2).sum())
    assert out.shape == (16, 4) and out.rows == 16
    assert out.sqnr_db == pytest.approx(sqnr, abs=0.01)
    assert out.max_error == pytest.approx(np.abs(ref - got).max(), rel=1e-3)
    assert out.top1_agreeing == int((ref.argmax(1) == got.argmax(1)).sum())


def _without_activation_qdq(model):
    """`model` with each QuantizeLinear -> DequantizeLinear pair removed
    (the pair's readers read the QuantizeLinear's input), the
    DequantizeLinear of an integer initializer kept. A QuantizeLinear goes
    once no other node reads it."""
    stripped = onnx.ModelProto()
    stripped.CopyFrom(model)
    graph = stripped.graph
    producer = {out: n for n in graph.node for out in n.output}
    source, dead = {}, set()
    for node in graph.node:
        if node.op_type != "DequantizeLinear":
            continue
        q = producer.get(node.input[0])
        if q is not None and q.op_type == "QuantizeLinear":
            source[node.output[0]] = q.input[0]
            dead.add(id(node))
    read = {i for n in graph.node if id(n) not in dead for i in n.input}
    dead.update(id(n) for n in graph.node
                if n.op_type == "QuantizeLinear" and n.output[0] not in read)
    kept = [n for n in graph.node if id(n) not in dead]
    for node in kept:
        node.input[:] = [source.get(i, i) for i in node.input]
    del graph.node[:]
    graph.node.extend(kept)
    assert not any(o.name in source for o in graph.output)
    return stripped


def test_without_a_reference_removes_qdq(block_model, calibrated,
                                        calib_data):
    """Without a reference, the quantized network's own Q/DQ-free version;
    a Module and the ModelProto it came from compare the same."""
    result = quant_qdq.compare(calibrated, inputs=calib_data[:1], layers=0)
    # The same figures as against the model with its activation Q/DQ pairs
    # cut out here, its int8 weights' DequantizeLinear kept (as documented),
    # and not the float model's: the weights' rounding is not in them.
    stripped = quant_qdq.compare(calibrated, _without_activation_qdq(
        calibrated), calib_data[:1], layers=0)
    assert result.outputs[0].sqnr_db == pytest.approx(
        stripped.outputs[0].sqnr_db, abs=1e-6)
    assert result.outputs[0].max_error == pytest.approx(
        stripped.outputs[0].max_error, rel=1e-6)
    against_float = quant_qdq.compare(calibrated, block_model,
                                      calib_data[:1], layers=0)
    assert result.outputs[0].sqnr_db != pytest.approx(
        against_float.outputs[0].sqnr_db, abs=0.01)
    assert result.layers == []
    plain = quant_qdq.compare(quant_qdq.import_onnx(
        calibrated.SerializeToString()), inputs=calib_data[:1])
    assert plain.outputs[0].sqnr_db == result.outputs[0].sqnr_db


def test_float_model_equals_itself(block_model, calib_data):
    result = quant_qdq.compare(block_model, block_model, calib_data[:1])
    assert result.outputs[0].sqnr_db == math.inf
    assert result.outputs[0].max_error == 0


def test_errors(block_model, calibrated):
    with pytest.raises(ValueError, match="compare needs inputs"):
        quant_qdq.compare(calibrated, block_model)
    with pytest.raises(QuantQDQError, match="rank"):
        quant_qdq.compare(calibrated, block_model, np.zeros((3,), np.float32))
