"""Hostile input: every failure is a Python exception with the tool's
message, never a crash of the interpreter."""

import random

import numpy as np
import pytest

import quant_qdq
from quant_qdq import (CustomQDQInsertionCase, QuantizationSpec,
                       QuantQDQError, quantize_model)


class EveryInputCase(CustomQDQInsertionCase):
    """Asks for every input of every named layer."""

    def case(self, model, qspec):
        spec = QuantizationSpec()
        for layer in model.layers:
            if layer.name and layer.num_inputs:
                spec.add(layer.name,
                         quantization_index=list(range(layer.num_inputs)))
        return spec


@pytest.mark.filterwarnings("ignore::quant_qdq.QuantQDQWarning")
def test_mutated_models(block_model):
    data = block_model.SerializeToString()
    rng = random.Random(7)
    outcomes = {"ok": 0, "error": 0}
    for _ in range(60):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 12)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        try:
            quantize_model(bytes(mutated), custom_qdq_cases=[
                EveryInputCase(), quant_qdq.ResNetV2QDQCase()])
            outcomes["ok"] += 1
        except QuantQDQError as error:
            assert str(error) and error.diagnostics
            outcomes["error"] += 1
    # Both outcomes occur: the mutations reach past the protobuf parser.
    assert outcomes["ok"] and outcomes["error"]


def test_truncated_models(block_model):
    data = block_model.SerializeToString()
    for cut in range(0, len(data), max(1, len(data) // 50)):
        with pytest.raises(QuantQDQError):
            quant_qdq.import_onnx(data[:cut])


def test_names_that_are_not_utf8(block_model):
    raw = bytearray(block_model.SerializeToString())
    # Same length, so the protobuf stays valid: "pool1" -> "p\xffol1".
    at = raw.index(b"pool1")
    raw[at + 1] = 0xFF
    module = quant_qdq.import_onnx(bytes(raw))
    names = [layer.name for layer in quant_qdq.Graph(module)]
    assert "p\\xffol1" in names
    report = quant_qdq.insert_qdq(module)
    assert "p\\xffol1" in report


def test_calibration_data_of_the_wrong_shape(block_model):
    # Checked before anything compiles.
    with pytest.raises(QuantQDQError, match="dimension 2 is 9 but the model's "
                                            "input is 'tensor<1x3x8x8xf32>'"):
        quantize_model(block_model,
                       calibration_data=np.zeros((2, 3, 9, 9), np.float32))


def test_errors_name_the_location_without_the_function(block_model,
                                                       tmp_path):
    """An error on a function (a model's inputs against an array of another
    rank) is one line, not the function printed after it; QUANTQDQ_VERBOSE
    asks for the operation."""
    model = quantize_model(block_model)
    data = np.zeros((2, 3, 8), np.float32)
    with pytest.raises(QuantQDQError) as error:
        quant_qdq.compare(model, block_model, data)
    assert "has rank 3" in str(error.value)
    assert "func.func" not in str(error.value)
    assert len(str(error.value).splitlines()) == 1
    import os
    import subprocess
    import sys
    np.save(tmp_path / "x.npy", data)
    with open(tmp_path / "m.onnx", "wb") as f:
        f.write(model.SerializeToString())
    code = ("import numpy as np, quant_qdq as q\n"
            "try:\n"
            "    q.compare(r'%s', r'%s', np.load(r'%s'))\n"
            "except q.QuantQDQError as e:\n"
            "    print(e)\n") % (tmp_path / "m.onnx", tmp_path / "m.onnx",
                               tmp_path / "x.npy")
    verbose = subprocess.run([sys.executable, "-c", code], text=True,
                             capture_output=True, check=True,
                             env=dict(os.environ, QUANTQDQ_VERBOSE="1"))
    assert "see current operation" in verbose.stdout
    assert "func.func" in verbose.stdout


def test_invalid_pipelines():
    module = quant_qdq.parse_module("")
    for pipeline in ("builtin.module(", ")", "canonicalize{bogus=1}"):
        with pytest.raises(QuantQDQError, match="invalid pass pipeline"):
            quant_qdq.run_pipeline(module, pipeline)


def test_spec_file_errors_name_the_spec(block_model):
    module = quant_qdq.import_onnx(block_model)
    with pytest.raises(QuantQDQError, match="cannot read QuantizationSpec"):
        quant_qdq.run_pipeline(module, "insert-qdq{spec=/nonexistent.json}")


def test_export_of_a_module_without_function():
    with pytest.raises(QuantQDQError, match="export needs a function"):
        quant_qdq.export_onnx(quant_qdq.parse_module(""))


def test_calibration_table_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(QuantQDQError, match="malformed JSON"):
        quant_qdq.CalibrationTable.load(str(bad))
    with pytest.raises(QuantQDQError, match="cannot read"):
        quant_qdq.CalibrationTable.load(str(tmp_path / "missing.json"))
    with pytest.raises(QuantQDQError, match="cannot write"):
        quant_qdq.CalibrationTable().save(str(tmp_path / "no" / "t.json"))


def test_warnings_as_errors_raise(block_model):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", quant_qdq.QuantQDQWarning)
        with pytest.raises(quant_qdq.QuantQDQWarning):
            quantize_model(block_model)


def test_error_is_a_runtime_error():
    assert issubclass(QuantQDQError, RuntimeError)
    assert issubclass(quant_qdq.QuantQDQWarning, UserWarning)
    with pytest.raises(RuntimeError):
        quant_qdq.import_onnx(b"\x00" * 16)


def test_threads(block_model, calib_data):
    # The extension releases the GIL while it works; each call has its own
    # context, so calls in parallel agree with a call alone.
    from concurrent.futures import ThreadPoolExecutor
    expected = quantize_model(block_model, calibration_data=calib_data)

    def work(_):
        return quantize_model(block_model, calibration_data=calib_data,
                              custom_qdq_cases=[EveryInputCase()])

    alone = work(0).SerializeToString()
    assert alone != expected.SerializeToString()
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(work, range(8)))
    assert all(r.SerializeToString() == alone for r in results)
