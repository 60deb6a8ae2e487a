"""Quantization-aware training of Keras models (quant_qdq.keras.qat): fake
quantization at insert-qdq's placements, the seed's quantizer semantics,
and the export of the trained model with its learned ranges."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras
import numpy as np
import pytest
import tensorflow as tf

import quant_qdq as qq
from qdq_helpers import run_onnx
from quant_qdq.keras.qat import (FakeQuantize, QuantizeWeights,
                                 export_qat_model, fake_quantize)


def residual_net():
    inputs = keras.Input((8, 8, 3), name="image")
    x = keras.layers.Conv2D(8, 3, padding="same", name="stem")(inputs)
    x = keras.layers.BatchNormalization(name="stem_bn")(x)
    x = keras.layers.ReLU(name="stem_relu")(x)
    y = keras.layers.Conv2D(8, 3, padding="same", name="conv1")(x)
    y = keras.layers.BatchNormalization(name="bn1")(y)
    x = keras.layers.Add(name="add")([x, y])
    x = keras.layers.MaxPooling2D(name="pool")(x)
    x = keras.layers.DepthwiseConv2D(3, padding="same", name="dw")(x)
    x = keras.layers.GlobalAveragePooling2D(name="gap")(x)
    return keras.Model(inputs, keras.layers.Dense(4, name="fc")(x))


def test_fake_quantize_forward_and_gradient():
    """Narrow symmetric 8-bit, round half to even, clamped; the gradient
    passes inside the range and stops outside."""
    scale = 1.0 / 127
    x = tf.constant([0.5 * scale, 1.5 * scale, 2.5 * scale, -0.9, 1.0,
                     1.5, -2.0], tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fake_quantize(x, 1.0)
    want = np.round(np.clip(x.numpy(), -1, 1) / scale) * scale
    np.testing.assert_allclose(y.numpy(), want, rtol=0, atol=1e-7)
    assert y.numpy()[0] == 0.0 and y.numpy()[2] == np.float32(2 * scale)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(),
                                  [1, 1, 1, 1, 1, 0, 0])
    four = fake_quantize(tf.constant([0.3, -1.0]), 1.0, num_bits=4)
    np.testing.assert_allclose(four.numpy(), [2 / 7, -1.0], atol=1e-7)


def test_ranges_follow_training():
    last = FakeQuantize(name="last")
    ema = FakeQuantize(range_tracking="moving_average", ema_decay=0.9,
                       name="ema")
    x = tf.constant([[0.5, -3.0]])
    last(x, training=True)
    ema(x, training=True)
    assert float(last.amax.numpy()) == 3.0
    assert float(ema.amax.numpy()) == pytest.approx(0.9 * 6 + 0.1 * 3)
    last(tf.constant([[100.0]]), training=False)  # inference: unchanged
    assert float(last.amax.numpy()) == 3.0
    with pytest.raises(ValueError, match="range_tracking"):
        FakeQuantize(range_tracking="max")


def test_placement_is_insert_qdqs():
    """Activation fake quantization on exactly the tensors insert-qdq
    quantizes (one FakeQuantize per tensor), QuantizeWeights around the
    layers whose weights it quantizes."""
    model = residual_net()
    qat = qq.quantize_model(model, custom_qdq_cases=[qq.ResNetV1QDQCase()],
                            qat=True)
    wrapped = sorted(l.layer.name for l in qat.layers
                     if isinstance(l, QuantizeWeights))
    assert wrapped == ["conv1", "dw", "fc", "stem"]
    # What each FakeQuantize feeds.
    fed = {}
    for layer in qat.layers:
        for node in layer._inbound_nodes:
            for t in node.input_tensors:
                src = t._keras_history[0]
                if isinstance(src, FakeQuantize):
                    target = getattr(layer, "layer", layer).name
                    fed.setdefault(src.name, set()).add(target)
    assert fed == {"image_quantize": {"stem"},
                   "stem_relu_quantize": {"conv1", "add"},
                   "pool_quantize": {"dw"}, "dw_quantize": {"gap"},
                   "gap_quantize": {"fc"}}
    # The original is untouched; the copy starts from its weights.
    assert not any(isinstance(l, (FakeQuantize, QuantizeWeights))
                   for l in model.layers)
    np.testing.assert_array_equal(qat.get_layer("quant_stem").layer.kernel,
                                  model.get_layer("stem").kernel)


def test_trained_model_exports_with_its_ranges(tmp_path):
    """A few steps of fit, then export: the Q/DQ scales are the tracked
    ranges / 127, weights int8 per channel, and ONNX Runtime computes what
    the Keras model computes."""
    keras.utils.set_random_seed(0)
    model = residual_net()
    qat = qq.quantize_model(model, custom_qdq_cases=[qq.ResNetV1QDQCase()],
                            qat=True)
    rs = np.random.RandomState(0)
    x = rs.randn(64, 8, 8, 3).astype("f")
    y = rs.randint(0, 4, 64)
    qat.compile(optimizer="adam", loss=keras.losses.
                SparseCategoricalCrossentropy(from_logits=True))
    qat.fit(x, y, epochs=2, batch_size=16, verbose=0)
    amax = float(qat.get_layer("image_quantize").amax.numpy())
    assert amax != 6.0  # tracked in training
    onnx_model = export_qat_model(qat)
    scales = {}
    inits = {t.name: t for t in onnx_model.graph.initializer}
    from onnx import numpy_helper
    for node in onnx_model.graph.node:
        if node.op_type == "QuantizeLinear":
            scales[node.input[0]] = numpy_helper.to_array(
                inits[node.input[1]])
    assert any(np.isclose(float(s), amax / 127, rtol=1e-6)
               for s in scales.values())
    int8_weights = [t for t in onnx_model.graph.initializer
                    if t.data_type == 3 and len(t.dims) > 1]
    assert len(int8_weights) == 4
    want = qat.predict(x[:16], verbose=0)
    got = run_onnx(onnx_model, x[:16])
    step = np.abs(want).max() / 127
    assert np.abs(got - want).max() < 2 * step
    assert (np.argmax(got, 1) == np.argmax(want, 1)).all()
    # Saved and loaded by Keras (its layers registered), and read by
    # quant_qdq from the file.
    path = str(tmp_path / "qat.keras")
    qat.save(path)
    again = qq.load_module(path)
    np.testing.assert_allclose(run_onnx(qq.export_onnx(again), x[:16]), got,
                               rtol=0, atol=1e-6)


def test_four_bit_weights_export_as_int4():
    """4-bit QAT weights export as INT4 initializers per output channel,
    at opset 21, and ONNX Runtime computes what the Keras model does."""
    keras.utils.set_random_seed(0)
    qat = qq.quantize_model(residual_net(), qat=True, weight_bits=4,
                            custom_qdq_cases=[qq.ResNetV1QDQCase()])
    x = np.random.RandomState(1).randn(16, 8, 8, 3).astype("f")
    onnx_model = export_qat_model(qat)
    opset = {o.domain: o.version for o in onnx_model.opset_import}[""]
    assert opset == 21
    int4 = [t for t in onnx_model.graph.initializer
            if t.data_type == 22 and len(t.dims) > 1]  # TensorProto.INT4
    assert len(int4) == 4
    # 14 of these 16 rows are equal to float rounding; 2 differ by about
    # one step of an inner quantizer, most likely where an inner value
    # sits within float rounding of a tie, which TF's and ONNX Runtime's
    # summation orders then round apart (4-bit weights make such round
    # sums likelier).
    want = qat.predict(x, verbose=0)
    got = run_onnx(onnx_model, x)
    equal = np.abs(got - want).max(1) < 1e-6
    assert equal.sum() >= 14
    assert np.abs(got - want).max() < 0.1 * np.abs(want).max()


def test_tf_keras_models_train_too(tmp_path):
    """A tf.keras model gets tf.keras layers (TensorFlow's ops), trains,
    and exports as a Keras 3 one does."""
    import tf_keras
    layers = tf_keras.layers
    inputs = tf_keras.Input((8, 8, 3), name="image")
    x = layers.Conv2D(8, 3, padding="same", name="stem")(inputs)
    x = layers.BatchNormalization(name="bn")(x)
    x = layers.ReLU(name="relu")(x)
    x = layers.DepthwiseConv2D(3, padding="same", name="dw")(x)
    x = layers.GlobalAveragePooling2D(name="gap")(x)
    model = tf_keras.Model(inputs, layers.Dense(4, name="fc")(x))
    x = np.random.RandomState(0).randn(32, 8, 8, 3).astype("f")
    qat = qq.quantize_model(model, qat=True, calibration_data=x)
    assert isinstance(qat, tf_keras.Model)
    assert sorted(l.layer.name for l in qat.layers
                  if type(l).__name__ == "QuantizeWeights") == \
        ["dw", "fc", "stem"]
    assert float(qat.get_layer("image_quantize").amax.numpy()) == \
        pytest.approx(float(np.abs(x).max()))
    qat.compile(optimizer="adam", loss=tf_keras.losses.
                SparseCategoricalCrossentropy(from_logits=True))
    qat.fit(x, np.arange(32) % 4, epochs=1, batch_size=8, verbose=0)
    want = qat.predict(x[:8], verbose=0)
    got = run_onnx(export_qat_model(qat), x[:8])
    assert np.abs(got - want).max() < 2 * np.abs(want).max() / 127
    assert (np.argmax(got, 1) == np.argmax(want, 1)).all()
    # Saved by tf.keras and read back by quant_qdq.
    path = str(tmp_path / "qat.h5")
    qat.save(path)
    np.testing.assert_allclose(
        run_onnx(qq.export_onnx(qq.load_module(path)), x[:8]), got,
        rtol=0, atol=1e-6)
    with pytest.raises(TypeError, match="keras.Model"):
        qq.quantize_model(object(), qat=True)


def test_ranges_start_from_calibration_data():
    model = residual_net()
    x = np.random.RandomState(1).randn(40, 8, 8, 3).astype("f")
    qat = qq.quantize_model(model, custom_qdq_cases=[qq.ResNetV1QDQCase()],
                            qat=True, calibration_data=x, batch_size=16)
    assert float(qat.get_layer("image_quantize").amax.numpy()) == \
        pytest.approx(float(np.abs(x).max()))
    relu = keras.Model(model.inputs, model.get_layer("stem_relu").output)
    assert float(qat.get_layer("stem_relu_quantize").amax.numpy()) == \
        pytest.approx(float(np.abs(relu.predict(x, verbose=0)).max()),
                      rel=1e-5)
    with pytest.raises(ValueError, match="calibration_method"):
        qq.quantize_model(model, qat=True, calibration_data=x,
                          calibration_method="entropy")


def test_keras_qat_is_quant_qdq_keras_qat():
    """The module's old name imports, with a DeprecationWarning, for one
    release."""
    import importlib
    import sys

    import quant_qdq.keras.qat
    sys.modules.pop("quant_qdq.keras_qat", None)
    with pytest.warns(DeprecationWarning, match="now quant_qdq.keras.qat"):
        old = importlib.import_module("quant_qdq.keras_qat")
    assert old.export_qat_model is quant_qdq.keras.qat.export_qat_model
    assert old.FakeQuantize is quant_qdq.keras.qat.FakeQuantize


def test_saved_bit_widths_are_checked():
    """A saved model may say anything: a QuantizeWeights of 1e30 bits used
    to compute 2 ** 1e30 (found by fuzz/mutate_keras.py); it is refused."""
    dense = keras.layers.Dense(2)
    for bits in (1e30, 0, 17, 2.5, "8", True):
        with pytest.raises(ValueError, match="num_bits"):
            QuantizeWeights(dense, num_bits=bits)
        with pytest.raises(ValueError, match="num_bits"):
            FakeQuantize(num_bits=bits)
    assert QuantizeWeights(dense, num_bits=4.0).num_bits == 4
