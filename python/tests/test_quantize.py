"""quantize_model: the seed's modes, specs and cases on a ResNet-v1 block.

Each test checks the exported ONNX (which inputs a DequantizeLinear feeds)
and, where the rule matters, insert-qdq's report of who decided.
"""

import os
import tempfile
import warnings

import numpy as np
import onnx
import pytest

import quant_qdq
from quant_qdq import (CustomQDQInsertionCase, QuantizationSpec,
                       QuantQDQError, QuantQDQWarning, ResNetV1QDQCase,
                       check_is_quantizable_by_layer_name, insert_qdq,
                       quantize_model)
from qdq_helpers import (REPO_ROOT, initializers, op_counts, parse_report,
                         quantized_inputs)


class MaxPoolQDQCase(CustomQDQInsertionCase):
    """The seed's user case (docs 001), on the graph view."""

    def info(self) -> str:
        return "Enables quantization of MaxPool layers."

    def case(self, keras_model, qspec):
        mp_qspec = QuantizationSpec()
        for layer in keras_model.layers:
            if layer.class_name == "MaxPooling2D":
                if check_is_quantizable_by_layer_name(qspec, layer.name):
                    mp_qspec.add(name=layer.name, quantize_input=True,
                                 quantize_weight=False)
        return mp_qspec


def report_of(model, *args, **kwargs):
    module = quant_qdq.load_module(model)
    return parse_report(insert_qdq(module, *args, **kwargs))


def test_full_default(block_model):
    q = quantize_model(block_model)
    onnx.checker.check_model(q, full_check=True)
    inputs = quantized_inputs(q)
    # Conv and Dense: input and weight; GlobalAveragePooling: input.
    for conv in ("conv1", "conv2", "conv3", "fc"):
        assert inputs[conv][:2] == [True, True], conv
        assert inputs[conv][2:] == [False], "biases stay in float"
    assert inputs["gap"] == [True]
    # Add and MaxPool are off by default: conv2's pair stays below the pool
    # because the Add reads the float result.
    assert inputs["add1"] == [False, False]
    assert inputs["pool1"] == [False]
    # Weights are stored as int8 by default: only activations have a
    # QuantizeLinear.
    assert op_counts(q)["DequantizeLinear"] == 9
    assert op_counts(q)["QuantizeLinear"] == 5


def test_full_custom_add_class(block_model):
    qspec = QuantizationSpec()
    qspec.add(name="Add", is_keras_class=True)
    q = quantize_model(model=block_model, quantization_spec=qspec)
    assert quantized_inputs(q)["add1"] == [True, True]
    report = report_of(block_model, "full", qspec)
    assert report["add1"] == ([0, 1], False, "spec 'Add'")
    assert report["conv1"][2] == "default table"


def test_resnet_v1_case(block_model):
    q = quantize_model(model=block_model,
                       custom_qdq_cases=[ResNetV1QDQCase()])
    inputs = quantized_inputs(q)
    # Only the skip branch: TensorRT fuses the Add into conv3's kernel.
    assert inputs["add1"] == [False, True]
    # One pair on the block input, shared by conv2 and the skip branch
    # (horizontal fusion) and moved above the max pool.
    assert inputs["pool1"] == [True]
    report = report_of(block_model, "full", None, [ResNetV1QDQCase()])
    assert report["add1"] == ([1], False, "case residual")


def test_user_maxpool_case_subclass(block_model):
    q = quantize_model(block_model, custom_qdq_cases=[MaxPoolQDQCase()])
    assert quantized_inputs(q)["pool1"] == [True]
    report = report_of(block_model, custom_qdq_cases=[MaxPoolQDQCase()])
    assert report["pool1"] == ([0], False, "case MaxPoolQDQCase")
    assert report["add1"][2] == "default table"


def test_python_and_library_cases_merge(block_model):
    report = report_of(block_model, custom_qdq_cases=[
        MaxPoolQDQCase(), ResNetV1QDQCase()])
    assert report["pool1"] == ([0], False, "case MaxPoolQDQCase")
    assert report["add1"] == ([1], False, "case residual")


def test_user_spec_wins_over_cases(block_model):
    class GreedyCase(CustomQDQInsertionCase):
        """Ignores the user's spec: insert-qdq must still rank it below."""

        def case(self, model, qspec):
            spec = QuantizationSpec()
            spec.add([layer.name for layer in model.layers
                      if layer.class_name in ("MaxPooling2D", "Add")])
            return spec

    qspec = QuantizationSpec()
    qspec.add(["pool1", "add1"], quantize_input=False, quantize_weight=False)
    cases = [GreedyCase(), ResNetV1QDQCase()]
    report = report_of(block_model, "full", qspec, cases)
    assert report["pool1"] == ([], False, "spec 'pool1'")
    assert report["add1"] == ([], False, "spec 'add1'")
    inputs = quantized_inputs(quantize_model(block_model, "full", qspec,
                                             cases))
    assert inputs["add1"] == [False, False]
    assert inputs["pool1"] == [False]


def test_case_sees_graph_and_user_spec(block_model):
    seen = {}

    class Spy(CustomQDQInsertionCase):
        def case(self, model, qspec):
            seen["layers"] = [(layer.name, layer.class_name)
                              for layer in model.layers]
            seen["qspec"] = qspec
            return None

    qspec = QuantizationSpec()
    qspec.add("conv1")
    quantize_model(block_model, quantization_spec=qspec,
                   custom_qdq_cases=[Spy()])
    assert seen["qspec"] is qspec
    assert seen["layers"][:3] == [("conv1", "Conv2D"), ("relu1", "Activation"),
                                  ("pool1", "MaxPooling2D")]
    assert ("add1", "Add") in seen["layers"]


def test_partial_mode(block_model):
    qspec = QuantizationSpec()
    qspec.add(name=["conv1", "conv2"], quantize_weight=[False, True])
    q = quantize_model(block_model, quantization_mode="partial",
                       quantization_spec=qspec)
    inputs = quantized_inputs(q)
    assert inputs["conv1"][:2] == [True, False]
    assert inputs["conv2"][:2] == [True, True]
    assert inputs["conv3"][:2] == [False, False]
    assert inputs["fc"][:2] == [False, False]
    report = report_of(block_model, "partial", qspec)
    assert report["conv3"][2] == "partial mode: not in spec"


def test_partial_without_spec_is_an_error(block_model):
    with pytest.raises(ValueError, match="partial"):
        quantize_model(block_model, quantization_mode="partial")


def test_partial_with_cases_only(block_model):
    # The toolkit quantizes what the cases return when no spec is given.
    q = quantize_model(block_model, quantization_mode="partial",
                       custom_qdq_cases=[MaxPoolQDQCase()])
    assert op_counts(q)["QuantizeLinear"] == 1
    assert quantized_inputs(q)["pool1"] == [True]


def test_quantization_index(block_model):
    qspec = QuantizationSpec()
    qspec.add("add1", quantization_index=[1])
    inputs = quantized_inputs(quantize_model(block_model,
                                             quantization_spec=qspec))
    assert inputs["add1"] == [False, True]


def test_quantization_index_out_of_range(block_model):
    qspec = QuantizationSpec()
    qspec.add("add1", quantization_index=[5])
    with pytest.raises(QuantQDQError,
                       match="quantization_index 5 is out of range") as info:
        quantize_model(block_model, quantization_spec=qspec)
    assert any("add1" in d for d in info.value.diagnostics)
    assert "note: in this QuantizationSpec entry" in str(info.value)
    assert '"quantization_index": [5]' in str(info.value)


def test_class_spec_overrides_default(block_model):
    qspec = QuantizationSpec()
    qspec.add("Conv2D", is_keras_class=True, quantize_weight=False)
    inputs = quantized_inputs(quantize_model(block_model,
                                             quantization_spec=qspec))
    for conv in ("conv1", "conv2", "conv3"):
        assert inputs[conv][:2] == [True, False]
    assert inputs["fc"][:2] == [True, True]


def test_substring_match_and_quantizer(block_model):
    qspec = QuantizationSpec()
    qspec.add("conv", match="substring", input_quantizer={"bits": 6})
    module = quant_qdq.load_module(block_model)
    report = parse_report(insert_qdq(module, "full", qspec))
    assert report["conv2"][2] == "spec 'conv'"
    assert report["fc"][2] == "default table"
    assert "quant_qdq.quantize %arg0 <bits = 6>" in str(module)
    # ONNX Q/DQ store 4, 8 or 16 bits: export says so instead of writing a
    # wrong model.
    with pytest.raises(QuantQDQError, match="store 4, 8 or 16 bits; this "
                                            "quantizer has 6"):
        quantize_model(block_model, quantization_spec=qspec)


def test_int4_weight_only_blocks(block_model):
    # Weight-only int4 in blocks of 4 input channels: opset 21, INT4
    # initializers, no QuantizeLinear; ONNX Runtime runs it.
    import onnxruntime as ort
    with pytest.warns(QuantQDQWarning, match="opset from 13 to 21"):
        qdq = quantize_model(block_model, weight_format="int4",
                             activation_format="none", block_size=4)
    onnx.checker.check_model(qdq, full_check=True)
    assert {o.domain: o.version for o in qdq.opset_import}[""] == 21
    counts = op_counts(qdq)
    assert counts["QuantizeLinear"] == 0 and counts["DequantizeLinear"] == 4
    int4 = {t.name for t in qdq.graph.initializer
            if t.data_type == onnx.TensorProto.INT4}
    assert {"w1_quantized", "w2_quantized", "w3_quantized",
            "fcw_quantized"} < int4  # and their zero points
    fc = [n for n in qdq.graph.node if n.op_type == "DequantizeLinear"
          and n.output[0].startswith("fcw")][0]
    attrs = {a.name: a.i for a in fc.attribute}
    assert attrs == {"axis": 1, "block_size": 4}  # fcw is [4, 8], K = 8
    x = np.random.default_rng(0).standard_normal((1, 3, 8, 8)).astype(
        np.float32)
    session = ort.InferenceSession(qdq.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    assert np.isfinite(session.run(None, {"x": x})[0]).all()


def test_int16_activations(block_model):
    with pytest.warns(QuantQDQWarning, match="opset from 13 to 21"):
        qdq = quantize_model(block_model, activation_format="int16")
    zero_points = {t.data_type for t in qdq.graph.initializer
                   if t.name.endswith("zero_point")}
    assert zero_points == {onnx.TensorProto.INT16, onnx.TensorProto.INT8}


def test_formats_per_layer(block_model, calib_data):
    # The spec picks formats per layer: conv2 reads int16 and keeps int4
    # weights in blocks of 4 input channels; fc is FP8; the rest stays int8.
    import onnxruntime as ort
    qspec = QuantizationSpec()
    qspec.add("conv2", input_quantizer={"format": "int16"},
              weight_quantizer={"format": "int4", "block_size": 4})
    qspec.add("fc", quantizer={"format": "fp8"})
    with pytest.warns(QuantQDQWarning, match="opset from 13 to 21"):
        qdq = quantize_model(block_model, quantization_spec=qspec,
                             calibration_data=calib_data)
    onnx.checker.check_model(qdq, full_check=True)
    types = {t.name: t.data_type for t in qdq.graph.initializer}
    assert types["w2_quantized"] == onnx.TensorProto.INT4
    assert types["w1_quantized"] == onnx.TensorProto.INT8
    assert types["fcw_quantized"] == onnx.TensorProto.FLOAT8E4M3FN
    w2 = [n for n in qdq.graph.node if n.op_type == "DequantizeLinear"
          and n.input[0] == "w2_quantized"][0]
    assert {a.name: a.i for a in w2.attribute} == {"axis": 1,
                                                   "block_size": 4}
    zero_points = {types[n.input[2]] for n in qdq.graph.node
                   if n.op_type == "QuantizeLinear"}
    assert zero_points == {onnx.TensorProto.INT8, onnx.TensorProto.INT16,
                           onnx.TensorProto.FLOAT8E4M3FN}
    options = ort.SessionOptions()
    options.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_BASIC)
    session = ort.InferenceSession(qdq.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    assert np.isfinite(session.run(None, {"x": calib_data[:1]})[0]).all()


def test_onnxruntime_target(block_model, calib_data):
    # u8 activations with zero points, s8 weights, and the outputs of the
    # convolutions and the Add quantized: ORT forms QLinearConv and
    # QLinearAdd, where TensorRT's placement leaves them in float.
    import onnxruntime as ort
    counts = {}
    for target in ("tensorrt", "onnxruntime"):
        qdq = quantize_model(block_model, calibration_data=calib_data,
                             target=target)
        onnx.checker.check_model(qdq, full_check=True)
        types = {t.name: t.data_type for t in qdq.graph.initializer}
        counts[target] = {types[n.input[2]] for n in qdq.graph.node
                          if n.op_type == "QuantizeLinear"}
        options = ort.SessionOptions()
        options.log_severity_level = 3
        saved = os.path.join(tempfile.mkdtemp(), "optimized.onnx")
        options.optimized_model_filepath = saved
        ort.InferenceSession(qdq.SerializeToString(), options,
                             providers=["CPUExecutionProvider"])
        ran = op_counts(onnx.load(saved))
        counts[target] = (counts[target], ran["QLinearConv"],
                          ran["QLinearAdd"])
    assert counts["tensorrt"] == ({onnx.TensorProto.INT8}, 0, 0)
    assert counts["onnxruntime"] == ({onnx.TensorProto.UINT8}, 3, 1)
    with pytest.raises(QuantQDQError, match="target must be tensorrt or "
                                            "onnxruntime, got 'tflite'"):
        quantize_model(block_model, target="tflite")


def test_fp8(block_model):
    # FP8 weights stored as FLOAT8E4M3FN, activations through FP8 Q/DQ.
    import onnxruntime as ort
    with pytest.warns(QuantQDQWarning, match="opset from 13 to 19"):
        qdq = quantize_model(block_model, weight_format="fp8",
                             activation_format="fp8")
    onnx.checker.check_model(qdq, full_check=True)
    fp8 = {t.name for t in qdq.graph.initializer
           if t.data_type == onnx.TensorProto.FLOAT8E4M3FN}
    assert {"w1_quantized", "fcw_quantized"} < fp8
    x = np.random.default_rng(0).standard_normal((1, 3, 8, 8)).astype(
        np.float32)
    # ONNX Runtime 1.30's extended CPU rewrites fuse FP8 Q/DQ around a Conv
    # into QLinearConv, which takes no FP8: basic rewrites run it.
    options = ort.SessionOptions()
    options.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_BASIC)
    session = ort.InferenceSession(qdq.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    assert np.isfinite(session.run(None, {"x": x})[0]).all()


def _salient_mlp():
    """x[n, 64] -> MatMul -> Relu -> MatMul, for inputs whose first 4
    channels are 25 times the others (the case AWQ is for)."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((64, 32)) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((32, 8)) * 0.1).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
         helper.make_node("Relu", ["h"], ["r"], name="relu"),
         helper.make_node("MatMul", ["r", "w2"], ["y"], name="fc2")], "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 8])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    x = rng.standard_normal((128, 64)).astype(np.float32)
    x[:, :4] *= 25
    return helper.make_model(graph, ir_version=8,
                             opset_imports=[helper.make_opsetid("", 17)]), x


def test_awq():
    # Both layers get their weight scaled and a Mul on their input.
    model, x = _salient_mlp()
    with pytest.warns(QuantQDQWarning, match="opset from 17 to 21"):
        qdq = quantize_model(model, weight_format="int4",
                             activation_format="none", block_size=16,
                             awq=True, calibration_data=x)
    muls = [n.name for n in qdq.graph.node if n.op_type == "Mul"]
    assert muls == ["fc1_awq_scale", "fc2_awq_scale"]
    with pytest.raises(ValueError, match="give calibration_data"):
        quantize_model(model, weight_format="int4", awq=True)


def test_gptq_and_smoothquant():
    # GPTQ's integers differ from plain rounding's; SmoothQuant puts a Mul
    # before each W8A8 layer whose input no normalization produces.
    import onnxruntime as ort
    from onnx import numpy_helper
    model, x = _salient_mlp()
    formats = dict(weight_format="int4", activation_format="none",
                   block_size=16)
    with pytest.warns(QuantQDQWarning, match="opset from 17 to 21"):
        rounded = quantize_model(model, **formats)
    with pytest.warns(QuantQDQWarning, match="opset from 17 to 21"):
        gptq = quantize_model(model, gptq=True, calibration_data=x, **formats)
    ints = lambda m: [numpy_helper.to_array(i).astype(np.int8)
                      for i in m.graph.initializer if i.dims == [64, 32]]
    assert len(ints(gptq)) == 1 and not np.array_equal(ints(gptq)[0],
                                                       ints(rounded)[0])
    smooth = quantize_model(model, smooth_alpha=0.5, calibration_data=x)
    assert [n.name for n in smooth.graph.node if n.op_type == "Mul"] == [
        "fc1_smooth_scale", "fc2_smooth_scale"]
    session = ort.InferenceSession(smooth.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    assert np.isfinite(session.run(None, {"x": x})[0]).all()
    for option in (dict(gptq=True), dict(smooth_alpha=0.5)):
        with pytest.raises(ValueError, match="give calibration_data"):
            quantize_model(model, **option)
    with pytest.raises(QuantQDQError, match="alpha must be in"):
        quantize_model(model, smooth_alpha=2, calibration_data=x)


def test_matmul_nbits():
    # int4 blocks as ONNX Runtime's MatMulNBits, at the model's own opset.
    model, x = _salient_mlp()
    qdq = quantize_model(model, weight_format="int4",
                         activation_format="none", block_size=16,
                         matmul_nbits=True)
    assert [n.op_type for n in qdq.graph.node] == [
        "MatMulNBits", "Relu", "MatMulNBits"]
    assert {o.domain: o.version for o in qdq.opset_import} == {
        "": 17, "com.microsoft": 1}


def test_kv_cache_needs_a_cache():
    # A model without one: a warning, and nothing quantized for it.
    model, x = _salient_mlp()
    with pytest.warns(QuantQDQWarning, match="found no key/value cache"):
        quantize_model(model, kv_cache="int8", calibration_data=x)
    with pytest.raises(QuantQDQError, match="unknown kv-cache 'int4'"):
        quantize_model(model, kv_cache="int4")


def test_format_errors(block_model):
    with pytest.raises(QuantQDQError, match="unknown weight-format 'int3'"):
        quantize_model(block_model, weight_format="int3")
    with pytest.raises(QuantQDQError, match="weight-format=int4 stores 4 "
                                            "bits but weight-bits=6"):
        quantize_model(block_model, weight_format="int4", weight_bits=6)
    with pytest.raises(ValueError, match="with qat=True"):
        quantize_model(block_model, qat=True, block_size=128)


def test_tfmot_quantizer_field_names(block_model):
    # TFMOT's num_bits and per_axis are read as bits and per_channel.
    qspec = QuantizationSpec()
    qspec.add("conv1", input_quantizer={"num_bits": 4},
              weight_quantizer={"per_axis": False})
    module = quant_qdq.load_module(block_model)
    insert_qdq(module, "full", qspec)
    text = str(module)
    assert "quant_qdq.quantize %arg0 <bits = 4>" in text
    with pytest.raises(ValueError, match="TFMOT's name for 'bits'"):
        QuantizationSpec().add("conv1", quantizer={"bits": 8, "num_bits": 8})


@pytest.mark.warnings_checked
def test_unknown_layer_name_is_a_warning(block_model):
    qspec = QuantizationSpec()
    qspec.add("no_such_layer")
    with pytest.warns(QuantQDQWarning,
                      match="no layer named 'no_such_layer'") as caught:
        quantize_model(block_model, quantization_spec=qspec)
    # It points at the entry, not at the temporary file it went through.
    message = str(caught[0].message)
    assert message.startswith("QuantizationSpec:2:1: warning")
    assert '{"name": "no_such_layer"' in message


@pytest.mark.warnings_checked
def test_case_warnings(block_model):
    class Sloppy(CustomQDQInsertionCase):
        def case(self, model, qspec):
            spec = QuantizationSpec()
            spec.add("poool1")
            spec.add("pool1", quantizer={"bits": 4})
            return spec

    with pytest.warns(QuantQDQWarning) as caught:
        report = report_of(block_model, custom_qdq_cases=[Sloppy()])
    messages = [str(w.message) for w in caught]
    assert any("case 'Sloppy': no layer named 'poool1'" in m
               for m in messages)
    assert report["pool1"] == ([0], False, "case Sloppy")


def test_case_quantizer_settings(block_model):
    """A Python case's spec sets quantizers as the user's spec does: conv2
    gets a 4-bit asymmetric input calibrated by its own method and a
    per-tensor weight; the user's spec still wins where it speaks."""
    class FourBit(CustomQDQInsertionCase):
        def case(self, model, qspec):
            spec = QuantizationSpec()
            spec.add("conv2", input_quantizer={
                "bits": 4, "symmetric": False, "signed": False,
                "narrow_range": False, "calibration": "mse"},
                weight_quantizer={"per_channel": False})
            spec.add("conv3", quantizer={"bits": 6})
            return spec

    user = QuantizationSpec()
    user.add("conv3")
    module = quant_qdq.load_module(block_model)
    report = parse_report(insert_qdq(module, quantization_spec=user,
                                     custom_qdq_cases=[FourBit()]))
    assert report["conv2"] == ([0], True, "case FourBit; calibration mse")
    assert report["conv3"] == ([0], True, "spec 'conv3'")
    text = str(module)
    assert ('<bits = 4, is_signed = false, narrow_range = false, '
            'symmetric = false, calibration = mse>') in text
    assert "<bits = 6" not in text


@pytest.mark.warnings_checked
def test_uncalibrated_activations_warn(block_model):
    with pytest.warns(QuantQDQWarning, match="activations are uncalibrated"):
        quantize_model(block_model)


def test_case_must_return_a_spec(block_model):
    class Broken(CustomQDQInsertionCase):
        def case(self, model, qspec):
            return ["pool1"]

    with pytest.raises(TypeError, match="Broken.case.. must return"):
        quantize_model(block_model, custom_qdq_cases=[Broken()])


def test_case_errors_propagate(block_model):
    class Raises(CustomQDQInsertionCase):
        def case(self, model, qspec):
            model.get_layer("missing")

    with pytest.raises(ValueError, match="no layer named 'missing'"):
        quantize_model(block_model, custom_qdq_cases=[Raises()])


def test_case_with_bad_index(block_model):
    class BadIndex(CustomQDQInsertionCase):
        def case(self, model, qspec):
            spec = QuantizationSpec()
            spec.add("pool1", quantization_index=[3])
            return spec

    with pytest.raises(QuantQDQError, match="asks for input 3"):
        quantize_model(block_model, custom_qdq_cases=[BadIndex()])


def test_base_case_must_be_overridden(block_model):
    with pytest.raises(NotImplementedError):
        quantize_model(block_model,
                       custom_qdq_cases=[CustomQDQInsertionCase()])


def test_not_a_case(block_model):
    with pytest.raises(TypeError, match="custom_qdq_cases"):
        quantize_model(block_model, custom_qdq_cases=[42])


def test_bad_mode(block_model):
    with pytest.raises(ValueError, match="quantization_mode"):
        quantize_model(block_model, quantization_mode="most")


def test_library_case_classes_are_registered():
    registered = quant_qdq.insertion_cases()
    classes = {quant_qdq.ResNetV1QDQCase: "resnet-v1",
               quant_qdq.ResNetV2QDQCase: "resnet-v2",
               quant_qdq.EfficientNetQDQCase: "efficientnet",
               quant_qdq.MobileNetQDQCase: "mobilenet",
               quant_qdq.InceptionQDQCase: "inception",
               quant_qdq.ResidualConnectionQDQCase: "residual",
               quant_qdq.BNQDQCase: "bn",
               quant_qdq.MaxPoolQDQCase: "maxpool"}
    for cls, name in classes.items():
        case = cls()
        assert case.case_name == name
        assert name in registered
        assert case.info()
    assert registered["resnet-v2"][1] == ("residual", "bn", "maxpool")


def test_library_case_method_returns_its_spec(block_model):
    graph = quant_qdq.Graph(quant_qdq.import_onnx(block_model))
    spec = ResNetV1QDQCase().case(graph, None)
    assert [(entry.name, entry.quantization_index)
            for entry in spec.layers] == [("add1", [1])]
    # The user's spec has the last word, as in the toolkit.
    user = QuantizationSpec()
    user.add("add1")
    assert len(ResNetV1QDQCase().case(graph, user)) == 0
    # Through its spec, a library case places what it places by name.
    by_spec = report_of(block_model, "full", spec)
    assert by_spec["add1"][:2] == ([1], False)


def test_overridden_library_case_runs_in_python(block_model):
    class NoResidual(ResNetV1QDQCase):
        def case(self, model, qspec):
            spec = super().case(model, qspec)
            spec.layers = [entry for entry in spec.layers
                           if entry.name != "add1"]
            return spec

    report = report_of(block_model, custom_qdq_cases=[NoResidual()])
    assert report["add1"][2] == "default table"


def test_cases_by_name_and_file(block_model):
    report = report_of(block_model, custom_qdq_cases=["maxpool"])
    assert report["pool1"] == ([0], False, "case maxpool")
    pdll = REPO_ROOT + "/examples/cases/maxpool_case.pdll"
    report = report_of(block_model, custom_qdq_cases=[
        quant_qdq.RegisteredQDQCase(pdll)])
    assert report["pool1"] == ([0], False, "case maxpool_case.pdll")


def test_unknown_case_name(block_model):
    with pytest.raises(QuantQDQError, match="resnet-v9"):
        quantize_model(block_model, custom_qdq_cases=["resnet-v9"])


def test_model_inputs_agree(block_model, block_path):
    expected = quantize_model(block_model).SerializeToString()
    assert quantize_model(block_path).SerializeToString() == expected
    assert quantize_model(
        block_model.SerializeToString()).SerializeToString() == expected
    module = quant_qdq.import_onnx(block_path)
    assert quantize_model(module).SerializeToString() == expected
    # The module given is copied, not changed.
    assert "quant_qdq.quantize" not in str(module)


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        quantize_model("/nonexistent/model.onnx")


def test_integer_weights(block_model):
    q = quantize_model(block_model, integer_weights=True)
    inits = initializers(q)
    int8 = [n for n, a in inits.items() if a.dtype == np.int8 and a.ndim == 4]
    assert len(int8) == 3
    assert quantized_inputs(q)["conv1"][:2] == [True, True]


def test_fold_batch_norm():
    from onnx import TensorProto, helper, numpy_helper
    ones = numpy_helper.from_array(np.ones(4, np.float32))
    params = []
    for name in ("scale", "bias", "mean", "var"):
        t = onnx.TensorProto()
        t.CopyFrom(ones)
        t.name = name
        params.append(t)
    weight = numpy_helper.from_array(
        np.full((4, 3, 1, 1), 0.5, np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
         helper.make_node("BatchNormalization",
                          ["c", "scale", "bias", "mean", "var"], ["y"],
                          name="bn")],
        "conv_bn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 4, 4])],
        [weight] + params)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    assert op_counts(quantize_model(model))["BatchNormalization"] == 1
    folded = quantize_model(model, fold_batch_norm=True)
    assert op_counts(folded)["BatchNormalization"] == 0


def test_report_file(block_model, tmp_path):
    path = tmp_path / "report.txt"
    quantize_model(block_model, custom_qdq_cases=[ResNetV1QDQCase()],
                   report=str(path))
    report = parse_report(path.read_text())
    assert report["add1"][2] == "case residual"
    assert len(report) == 11


def test_no_warnings_when_calibrated(block_model, calib_data):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quantize_model(block_model, calibration_data=calib_data)
