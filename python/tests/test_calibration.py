"""Calibration from Python: arrays, iterables of batches, tables, methods.

The max method has an exact answer: the input's scale is max|x| / 127.
"""

import numpy as np
import pytest

import quant_qdq
from quant_qdq import (CalibrationTable, QuantQDQError, ResNetV1QDQCase,
                       TensorRange, calibrate, collect_calibration_table,
                       quantize_model)
from qdq_helpers import (calibration_reference, initializers,
                          tensor_values)


def activation_scales(model):
    """{tensor name: scale} of the per-tensor (activation) quantizers."""
    inits = initializers(model)
    scales = {}
    for node in model.graph.node:
        if node.op_type == "QuantizeLinear":
            scale = inits[node.input[1]]
            if scale.size == 1:
                scales[node.input[0]] = float(scale)
    return scales


def test_max_method_is_exact(block_model, calib_data):
    q = quantize_model(block_model, calibration_data=calib_data)
    scales = activation_scales(q)
    assert scales["x"] == pytest.approx(np.abs(calib_data).max() / 127,
                                        rel=1e-6)
    # Every activation quantizer got a scale of its own, not the
    # uncalibrated 6 / 127.
    assert len(scales) == 5
    assert all(s != pytest.approx(6 / 127) for s in scales.values())


def test_batches_stream_like_one_array(block_model, calib_data):
    whole = quantize_model(block_model, calibration_data=calib_data)

    def batches():
        for i in range(0, 16, 4):
            yield calib_data[i:i + 4]

    streamed = quantize_model(block_model, calibration_data=batches())
    assert activation_scales(streamed) == activation_scales(whole)
    # A DataLoader yields (inputs, labels).
    pairs = [(calib_data[i:i + 8], np.zeros(8)) for i in (0, 8)]
    paired = quantize_model(block_model, calibration_data=pairs)
    assert activation_scales(paired) == activation_scales(whole)


def _two_input_model():
    """y = Relu(x + shift) @ w: a model of two named inputs."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    w = numpy_helper.from_array(np.full((4, 3), 0.5, np.float32), "w")
    nodes = [helper.make_node("Add", ["x", "shift"], ["s"], name="add"),
             helper.make_node("Relu", ["s"], ["r"], name="relu"),
             helper.make_node("MatMul", ["r", "w"], ["y"], name="fc")]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT,
                                            ["batch", 4])
              for n in ("x", "shift")]
    graph = helper.make_graph(
        nodes, "two", inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])],
        [w])
    return helper.make_model(graph, ir_version=8,
                             opset_imports=[helper.make_opsetid("", 13)])


def test_several_inputs_by_name():
    """Mappings of input names to arrays (as tokenizers return them)
    calibrate a model of several inputs, one batch or an iterable."""
    x = np.linspace(-1, 2, 16, dtype=np.float32).reshape(4, 4)
    shift = np.full((4, 4), 3, np.float32)
    model = _two_input_model()
    q = quantize_model(model, calibration_data={"shift": shift, "x": x})
    scales = activation_scales(q)
    assert scales["relu_output_0"] == pytest.approx((2 + 3) / 127, rel=1e-6)
    batches = [{"x": x[i:i + 2], "shift": shift[i:i + 2]} for i in (0, 2)]
    streamed = quantize_model(model, calibration_data=batches)
    assert activation_scales(streamed) == scales
    with pytest.raises(QuantQDQError, match="has no array for the model's "
                                            "input 'shift'"):
        quantize_model(model, calibration_data={"x": x})
    with pytest.raises(QuantQDQError, match="the model has 2 inputs"):
        quantize_model(model, calibration_data=x)


def test_npy_paths(block_model, calib_data, tmp_path):
    folder = tmp_path / "calib"
    folder.mkdir()
    np.save(str(folder / "a.npy"), calib_data[:8])
    np.save(str(folder / "b.npy"), calib_data[8:])
    from_folder = quantize_model(block_model, calibration_data=str(folder))
    whole = quantize_model(block_model, calibration_data=calib_data)
    assert activation_scales(from_folder) == activation_scales(whole)


@pytest.mark.parametrize("method", ["percentile", "entropy", "mse"])
def test_histogram_methods_match_the_reference(block_model, calib_data,
                                               method):
    """Each quantized activation's scale is amax / 127 for the amax the
    NumPy reference chooses on that tensor's values (to a bin of the 2048
    over [0, max|x|]), and the methods clip: below the max somewhere."""
    by_max = activation_scales(quantize_model(
        block_model, calibration_data=calib_data))
    # The method's own ranges, unchecked against max's.
    scales = activation_scales(quantize_model(
        block_model, calibration_data=calib_data, calibration_method=method,
        percentile=99.0, check_ranges=False))
    assert scales.keys() == by_max.keys()
    reference = calibration_reference()
    values = tensor_values(block_model, sorted(scales), calib_data)
    for name, scale in scales.items():
        expected = reference.reference_amax(method, values[name],
                                            percentile=99.0)
        assert reference.within_a_bin(scale * 127, expected, values[name]), \
            (name, scale * 127, expected)
    assert any(scales[n] < by_max[n] * 0.99 for n in scales)


def test_method_per_spec_entry(block_model, calib_data):
    """conv1's input quantizer asks for the 99th percentile; the others
    keep the global max."""
    by_max = activation_scales(quantize_model(
        block_model, calibration_data=calib_data))
    qspec = quant_qdq.QuantizationSpec()
    qspec.add("conv1", input_quantizer={"calibration": "percentile"})
    scales = activation_scales(quantize_model(
        block_model, quantization_spec=qspec, calibration_data=calib_data,
        percentile=99.0))
    assert scales.keys() == by_max.keys()
    by_percentile = np.percentile(np.abs(calib_data), 99.0) / 127
    assert scales["x"] == pytest.approx(by_percentile, rel=0.01)
    assert scales["x"] < by_max["x"] * 0.9
    for name in scales.keys() - {"x"}:
        assert scales[name] == pytest.approx(by_max[name], rel=1e-6), name


def test_weight_quantizer_has_no_calibration():
    qspec = quant_qdq.QuantizationSpec()
    with pytest.raises(ValueError, match="weights are scaled from their"):
        qspec.add("conv1", weight_quantizer={"calibration": "max"})
    with pytest.raises(ValueError, match="calibration must be one of"):
        qspec.add("conv1", input_quantizer={"calibration": "kl"})


def test_unknown_method(block_model, calib_data):
    with pytest.raises(ValueError, match="calibration_method"):
        quantize_model(block_model, calibration_data=calib_data,
                       calibration_method="minmax")


def test_wrong_rank_is_reported(block_model, calib_data):
    with pytest.raises(QuantQDQError, match="expected arrays of rank 4"):
        quantize_model(block_model, calibration_data=calib_data[0])


def test_empty_data(block_model):
    with pytest.raises(ValueError, match="no calibration data"):
        quantize_model(block_model, calibration_data=[])
    with pytest.raises(TypeError, match="calibration data"):
        quantize_model(block_model, calibration_data=3)


def test_calibrate_a_qdq_model(block_model, calib_data):
    cases = [ResNetV1QDQCase()]
    # Float weights, so that the model calibrated later computes the same
    # float network as the direct path (int8 weights would run rounded).
    uncalibrated = quantize_model(block_model, custom_qdq_cases=cases,
                                  integer_weights=False)
    calibrated = calibrate(uncalibrated, calib_data, method="max")
    direct = quantize_model(block_model, custom_qdq_cases=cases,
                            calibration_data=calib_data)
    assert activation_scales(calibrated) == pytest.approx(
        activation_scales(direct), rel=1e-6)


def test_table_save_load(block_model, calib_data, tmp_path):
    qdq = quantize_model(block_model)
    table = collect_calibration_table(qdq, calib_data, method="entropy")
    assert table.method == "entropy"
    assert "x" in table
    x = table["x"]
    assert x.min == pytest.approx(calib_data.min())
    assert x.max == pytest.approx(calib_data.max())
    reference = calibration_reference()
    assert reference.within_a_bin(x.amax, reference.entropy_amax(calib_data),
                                  calib_data)

    table.save(str(tmp_path / "table.json"))
    loaded = CalibrationTable.load(str(tmp_path / "table.json"))
    assert loaded.method == "entropy"
    assert loaded.keys() == table.keys()
    for name, r in table.items():
        assert (loaded[name].amax, loaded[name].min, loaded[name].max) == \
            pytest.approx((r.amax, r.min, r.max), rel=1e-6)

    # TensorRT's cache keeps the scales, amax / 127 as float32.
    table.save(str(tmp_path / "table.cache"))
    cache = (tmp_path / "table.cache").read_text().splitlines()
    assert cache[0] == "TRT-8600-EntropyCalibration2"
    from_cache = CalibrationTable.load(str(tmp_path / "table.cache"))
    for name in table:
        assert from_cache[name].amax == pytest.approx(table[name].amax,
                                                      rel=1e-6)

    applied = quantize_model(block_model, calibration_table=loaded)
    assert activation_scales(applied)["x"] == pytest.approx(x.amax / 127,
                                                            rel=1e-6)


def test_table_missing_a_tensor(block_model):
    table = CalibrationTable("max", {"x": TensorRange(1.0, -1.0, 1.0)})
    with pytest.raises(QuantQDQError, match="no calibration range for "
                                            "tensor 'pool1_output_0'"):
        quantize_model(block_model, calibration_table=table)


def test_apply_calibration_table(block_model, calib_data):
    qdq = quantize_model(block_model)
    table = collect_calibration_table(qdq, calib_data)
    applied = quant_qdq.apply_calibration_table(qdq, table)
    assert activation_scales(applied)["x"] == pytest.approx(
        table["x"].amax / 127, rel=1e-6)


def test_data_and_table_exclusive(block_model, calib_data):
    with pytest.raises(ValueError, match="not both"):
        quantize_model(block_model, calibration_data=calib_data,
                       calibration_table=CalibrationTable())


def test_default_batches(block_model, monkeypatch):
    """Without batch_size, max (whose range does not depend on batches)
    gives what any batch size gives, and last-value keeps TFMOT's batches
    of 32: its range is that of samples 32 to 40, not of the last few
    (with 4 threads the other methods' default would end at 36 to 40)."""
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    for value in (block_model.graph.input[0], block_model.graph.output[0]):
        value.type.tensor_type.shape.dim[0].dim_param = "N"
    data = np.random.default_rng(2).standard_normal(
        (40, 3, 8, 8)).astype(np.float32)
    data[32:36] *= 10

    def input_scale(**settings):
        return activation_scales(quantize_model(
            block_model, calibration_data=data, **settings))["x"]

    whole = np.abs(data).max() / 127
    for batch_size in (None, 1, 32):
        assert input_scale(batch_size=batch_size) == pytest.approx(
            whole, rel=1e-6)
    last = input_scale(calibration_method="last-value")
    assert last == pytest.approx(np.abs(data[32:]).max() / 127, rel=1e-6)
    assert last == input_scale(calibration_method="last-value",
                               batch_size=32)
    assert input_scale(calibration_method="last-value",
                       batch_size=4) == pytest.approx(
        np.abs(data[36:]).max() / 127, rel=1e-6)
    # Batches of 6 leave 4 samples, run padded with copies of their own:
    # the last batch's range is still that of samples 36 to 40 alone, and
    # max, whatever the batch, the whole data's.
    assert input_scale(calibration_method="last-value",
                       batch_size=6) == pytest.approx(
        np.abs(data[36:]).max() / 127, rel=1e-6)
    assert input_scale(batch_size=7) == pytest.approx(whole, rel=1e-6)
    with pytest.raises(ValueError, match="batch_size must be positive"):
        quantize_model(block_model, calibration_data=data, batch_size=0)
