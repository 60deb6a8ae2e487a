"""NVIDIA's two extension points as the seed documents write them: a
`<KerasClass>QuantizeWrapper` gives a Keras class its default row, and a
CustomQDQInsertionCase given a Keras model walks the keras.Model."""

import os
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras
import numpy as np
import pytest
import tensorflow as tf

import quant_qdq as qq
from quant_qdq import (CustomQDQInsertionCase, QuantizationSpec,
                       check_is_quantizable_by_layer_name)
from quant_qdq.keras.qat import FakeQuantize
from quant_qdq.layer_defaults import default_rows, forget_default_row


def pooled_net(upsample=True):
    """Conv, ReLU, MaxPool, (UpSampling2D, which the importer keeps
    generic,) GlobalMaxPool, Dense."""
    inputs = keras.Input((8, 8, 3), name="image")
    x = keras.layers.Conv2D(4, 3, name="conv")(inputs)
    x = keras.layers.ReLU(name="relu")(x)
    x = keras.layers.MaxPooling2D(name="maxpool")(x)
    if upsample:
        x = keras.layers.UpSampling2D(name="upsample")(x)
    x = keras.layers.GlobalMaxPooling2D(name="gmp")(x)
    return keras.Model(inputs, keras.layers.Dense(2, name="fc")(x))


def quantized_inputs(model, **kwargs):
    """{layer: quantized input positions} insert-qdq decides."""
    module = qq.load_module(model)
    qq.insert_qdq(module, **kwargs)
    return {layer.name: list(layer.quantized_inputs)
            for layer in qq.Graph(module).layers}


@pytest.fixture
def registry():
    """The wrapper rows a test registers are forgotten after it."""
    before = {row.keras_class for row in default_rows()}
    yield
    for row in default_rows():
        if row.keras_class not in before:
            forget_default_row(row.keras_class)


def test_seed_new_layer_wrapper_gives_the_class_a_default_row(registry):
    model = pooled_net()
    assert quantized_inputs(model)["gmp"] == []

    from quant_qdq import NonWeightedBaseQuantizeWrapper

    class GlobalMaxPool2DQuantizeWrapper(NonWeightedBaseQuantizeWrapper):
        def __init__(self, layer, **kwargs):
            """
            Creates a wrapper to emulate quantization for the GlobalMaxPool2D
            keras layer.
            Args:
            layer: The keras layer to be quantized.
            **kwargs: Additional keyword arguments to be passed to the keras
                layer.
            """
            super().__init__(layer, **kwargs)

        def build(self, input_shape):
            super().build(input_shape)

        def call(self, inputs, training=None):
            return super().call(inputs, training=training)

    # The toolkit's registration asks for an instance; it works as a layer.
    wrapper = GlobalMaxPool2DQuantizeWrapper(
        keras.layers.GlobalMaxPool2D())
    x = np.random.default_rng(0).normal(size=(2, 4, 4, 3)).astype(
        np.float32)
    np.testing.assert_allclose(wrapper(x, training=True),
                               np.max(x, axis=(1, 2)), atol=np.abs(x).max()
                               / 127)

    # GlobalMaxPool2D is Keras's alias of GlobalMaxPooling2D.
    assert quantized_inputs(model)["gmp"] == [0]
    assert report_line(model, "gmp").endswith(
        "case GlobalMaxPool2DQuantizeWrapper")
    # Quantization-aware training follows it.
    qat = qq.quantize_model(model, qat=True)
    pool = qat.get_layer("gmp")
    assert type(pool.input._keras_history[0]) is FakeQuantize
    # The user's spec still wins; partial mode ignores default rows.
    spec = QuantizationSpec()
    spec.add(name="gmp", quantize_input=False)
    assert quantized_inputs(model, quantization_spec=spec)["gmp"] == []
    spec = QuantizationSpec()
    spec.add(name="conv")
    assert quantized_inputs(model, quantization_mode="partial",
                            quantization_spec=spec)["gmp"] == []


def report_line(model, layer, **kwargs):
    """insert-qdq's report line of `layer`: its class, quantized inputs,
    weight and rule."""
    report = qq.insert_qdq(qq.load_module(model), **kwargs)
    return [line.split(None, 1)[1] for line in report.splitlines()
            if line.split()[:1] == [layer]][0]


def test_wrapper_row_reaches_layers_the_importer_keeps_generic(registry):
    model = pooled_net()
    assert report_line(model, "upsample").split()[:3] == [
        "UpSampling2D", "[]", "no"]

    class UpSampling2DQuantizeWrapper(qq.NonWeightedBaseQuantizeWrapper):
        pass

    assert report_line(model, "upsample").split() == [
        "UpSampling2D", "[0]", "no", "case", "UpSampling2DQuantizeWrapper"]


def test_weighted_wrapper_quantizes_the_kernel(registry):
    class DenseQuantizeWrapper(qq.WeightedBaseQuantizeWrapper):
        quantization_index = [0]

    dense = keras.layers.Dense(3, use_bias=False)
    wrapper = DenseQuantizeWrapper(dense, kernel_type="kernel")
    x = np.eye(4, dtype=np.float32)
    wrapper(x)
    kernel = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    dense.kernel.assign(kernel)
    amax = np.abs(kernel).max(axis=0)
    want = np.round(kernel / (amax / 127)) * (amax / 127)
    np.testing.assert_allclose(wrapper(x, training=True), want, atol=1e-6)
    # The layer keeps its variable: the quantized kernel was for the call.
    assert dense.kernel is dense._kernel


class MaxPoolQDQCase(CustomQDQInsertionCase):
    """The seed's case, verbatim."""

    def __init__(self) -> None:
        super().__init__()

    def info(self) -> str:
        return "Enables quantization of MaxPool layers."

    def case(
        self, keras_model: tf.keras.Model, qspec: QuantizationSpec
    ) -> QuantizationSpec:
        mp_qspec = QuantizationSpec()
        for layer in keras_model.layers:
            if isinstance(layer, tf.keras.layers.MaxPooling2D):
                if check_is_quantizable_by_layer_name(qspec, layer.name):
                    mp_qspec.add(
                        name=layer.name,
                        quantize_input=True,
                        quantize_weight=False
                    )
        return mp_qspec


def test_seed_case_receives_the_keras_model(tmp_path):
    model = pooled_net(upsample=False)
    assert report_line(model, "maxpool").split()[1] == "[]"
    seen = []

    class Spy(MaxPoolQDQCase):
        def case(self, keras_model, qspec):
            seen.append(keras_model)
            return super().case(keras_model, qspec)

    report = tmp_path / "report.txt"
    qq.quantize_model(model, custom_qdq_cases=[Spy()], report=str(report))
    assert seen == [model]
    assert [line.split() for line in report.read_text().splitlines()
            if line.startswith("maxpool ")] == [
        ["maxpool", "MaxPooling2D", "[0]", "no", "case", "Spy"]]
    # A Keras file: the case gets the loaded keras.Model.
    path = str(tmp_path / "pooled.keras")
    model.save(path)
    onnx_model = qq.quantize_model(path, custom_qdq_cases=[Spy()])
    assert isinstance(seen[-1], keras.Model)
    pool = [n for n in onnx_model.graph.node if n.op_type == "MaxPool"][0]
    producer = {o: n for n in onnx_model.graph.node for o in n.output}
    assert producer[pool.input[0]].op_type == "DequantizeLinear"


def test_keras_style_case_on_an_onnx_model_warns(tmp_path):
    onnx_model = qq.export_onnx(qq.import_keras(pooled_net(False)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qq.quantize_model(onnx_model, custom_qdq_cases=[MaxPoolQDQCase()])
    messages = [str(w.message) for w in caught
                if "MaxPoolQDQCase.case()" in str(w.message)]
    assert messages and "quant_qdq.Graph" in messages[0] and \
        "MaxPooling2D" in messages[0]
