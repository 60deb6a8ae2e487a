"""quant_qdq.sensitivity and auto_precision, and quantize_model's
accuracy_target: the figures recomputed with ONNX Runtime (graph rewrites
off, so that Q/DQ compute what they say)."""

import math

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import quant_qdq
from quant_qdq import QuantQDQError
from quant_qdq.calibration import apply_table, collect_table


def _run(model, x):
    """The model (of batch 1) on every sample of `x`."""
    options = ort.SessionOptions()
    options.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return np.concatenate([session.run(None, {"x": x[i:i + 1]})[0]
                           for i in range(len(x))]).astype(np.float64)


def _sqnr(reference, actual):
    return 10 * math.log10((reference ** 2).sum()
                           / ((reference - actual) ** 2).sum())


@pytest.fixture
def calibrated_module(block_model, calib_data):
    module = quant_qdq.import_onnx(block_model)
    quant_qdq.insert_qdq(module, custom_qdq_cases=["resnet-v1"])
    apply_table(module, collect_table(module, calib_data))
    return module


def test_sensitivity_rows(block_model, calibrated_module, calib_data,
                          tmp_path):
    chart = tmp_path / "chart.svg"
    report = quant_qdq.sensitivity(calibrated_module, calib_data,
                                   chart=str(chart))
    assert report.samples == 16
    whole = _sqnr(_run(block_model, calib_data),
                  _run(quant_qdq.export_onnx(calibrated_module), calib_data))
    assert report.sqnr_db == pytest.approx(whole, abs=0.05)
    convs = [row for row in report.rows if row.op == "Conv2D"]
    assert convs and all(row.weights and row.inputs for row in convs)
    for row in report.rows:
        # Quantizing one layer alone costs less than quantizing all.
        for alone in (row.weight_only_sqnr_db, row.inputs_only_sqnr_db):
            assert alone is None or alone >= report.sqnr_db - 1e-9
    worst = report.most_sensitive(1)[0]
    assert worst in report.rows
    assert chart.read_text().startswith("<svg")


def test_auto_precision_meets_its_target(block_model, calibrated_module,
                                         calib_data):
    text = quant_qdq.auto_precision(
        calibrated_module, calib_data, target_sqnr=30,
        weight_formats=["int4", "int8"],
        activation_formats=["int8", "int16", "float"])
    assert "target 30.00 dB SQNR; chosen: SQNR" in text
    model = quant_qdq.export_onnx(calibrated_module)
    onnx.checker.check_model(model, full_check=True)
    measured = _sqnr(_run(block_model, calib_data), _run(model, calib_data))
    chosen = float(text.split("chosen: SQNR ")[1].split(" dB")[0])
    assert measured == pytest.approx(chosen, abs=0.05)
    assert measured >= 30 - 0.05


def test_quantize_model_accuracy_target(block_model, calib_data, tmp_path):
    report = tmp_path / "report.txt"
    model = quant_qdq.quantize_model(
        block_model, custom_qdq_cases=["resnet-v1"],
        calibration_data=calib_data, accuracy_target=35,
        weight_formats=["int4", "int8"], report=str(report))
    onnx.checker.check_model(model, full_check=True)
    assert _sqnr(_run(block_model, calib_data),
                 _run(model, calib_data)) >= 35 - 0.05
    assert "automatic precision on 16 samples" in report.read_text()


def test_mistakes(block_model, calibrated_module, calib_data):
    with pytest.raises(ValueError, match="give one target"):
        quant_qdq.auto_precision(calibrated_module, calib_data)
    with pytest.raises(ValueError, match="non-empty list"):
        quant_qdq.auto_precision(calibrated_module, calib_data,
                                 target_sqnr=30, weight_formats="int8")
    with pytest.raises(QuantQDQError, match="unknown format 'int3'"):
        quant_qdq.auto_precision(calibrated_module, calib_data,
                                 target_sqnr=30, weight_formats=["int3"])
    with pytest.raises(ValueError, match="give validation_data"):
        quant_qdq.quantize_model(block_model, accuracy_target=30)
    uncalibrated = quant_qdq.import_onnx(block_model)
    quant_qdq.insert_qdq(uncalibrated)
    with pytest.raises(QuantQDQError, match="needs a calibrated network"):
        quant_qdq.sensitivity(uncalibrated, calib_data)


def test_quantize_model_bias_correction(block_model, calib_data):
    """The biases move by the mean shift weight rounding adds, as the
    qdq-bias-correction pass computes it (test/Calibration/
    bias-correction.test recomputes it with ONNX Runtime); the model's
    output on the data moves closer to float's."""
    plain = quant_qdq.quantize_model(block_model, calibration_data=calib_data)
    corrected = quant_qdq.quantize_model(block_model,
                                         calibration_data=calib_data,
                                         bias_correction=True)
    onnx.checker.check_model(corrected, full_check=True)
    biases = {i.name for i in corrected.graph.initializer
              if i.name.endswith("_corrected")}
    assert biases
    reference = _run(block_model, calib_data)
    assert (_sqnr(reference, _run(corrected, calib_data))
            > _sqnr(reference, _run(plain, calib_data)))
    with pytest.raises(ValueError, match="bias_correction=True measures"):
        quant_qdq.quantize_model(block_model, bias_correction=True)


def test_quantize_model_cross_layer_equalization(block_model, calib_data):
    """conv2 -> relu2 -> conv3 is the block's one pair: both are rescaled
    (test/Transforms/CrossLayerEqualization checks the arithmetic, and that
    the float function is kept), and the QDQ model stays close to float
    (per-channel weights: equalization is not for them, and may cost a
    little). A calibration table describes the activations before
    equalization: refused."""
    plain = quant_qdq.quantize_model(block_model, calibration_data=calib_data)
    equalized = quant_qdq.quantize_model(block_model,
                                         calibration_data=calib_data,
                                         cross_layer_equalization=True)
    onnx.checker.check_model(equalized, full_check=True)
    rescaled = {i.name.split("_equalized")[0]
                for i in equalized.graph.initializer if "_equalized" in i.name}
    assert rescaled == {"conv2", "conv3"}
    reference = _run(block_model, calib_data)
    assert (_sqnr(reference, _run(equalized, calib_data))
            > _sqnr(reference, _run(plain, calib_data)) - 3)
    with pytest.raises(ValueError, match="cross_layer_equalization are for"):
        quant_qdq.quantize_model(block_model, qat=True,
                                 cross_layer_equalization=True)
    module = quant_qdq.import_onnx(block_model)
    quant_qdq.insert_qdq(module, custom_qdq_cases=["resnet-v1"])
    table = collect_table(module, calib_data)
    with pytest.raises(ValueError, match="rescales the activations"):
        quant_qdq.quantize_model(block_model, calibration_table=table,
                                 cross_layer_equalization=True)
