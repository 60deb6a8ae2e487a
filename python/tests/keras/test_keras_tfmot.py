"""TFMOT's API as quant_qdq.keras: the seed guide's code blocks run with
only the import line changed, the numbers match TFMOT's own on tf.keras,
and applied models export to QDQ ONNX that computes what they compute."""

import os
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras
import numpy as np
import onnx
import pytest

import quant_qdq.keras as qk
from qdq_helpers import run_onnx
from quant_qdq import QuantQDQError

L = keras.layers


def wrapped(model):
    """{inner layer class: wrapper} of a quantize_apply model."""
    return {type(l.layer).__name__: l for l in model.layers
            if type(l).__name__ == "QuantizeWrapper"}


def kinds(model):
    return [type(l).__name__ for l in model.layers
            if type(l).__name__ != "InputLayer"]


def quantizer_ranges(wrapper):
    return {v.name: v.numpy() for v in wrapper.non_trainable_weights
            if v.name.endswith(("_min", "_max"))}


# -- the seed guide's blocks (seeds/002), import line changed -------------

def test_seed_quantize_subset():
    quantize_annotate_layer = qk.quantize_annotate_layer
    model = keras.Sequential([
        keras.Input((8, 8, 1)),
        # Only annotated layers will be quantized.
        quantize_annotate_layer(L.Conv2D(4, 3)),
        quantize_annotate_layer(L.ReLU()),
        L.Flatten(),
        # Dense won't be quantized since it hasn't been annotated.
        L.Dense(3),
    ])
    quantized_model = qk.quantize_apply(model)
    assert kinds(quantized_model) == ["QuantizeLayer", "QuantizeWrapper",
                                      "QuantizeWrapper", "Flatten", "Dense"]
    layers = wrapped(quantized_model)
    # The convolution's output is quantized after its ReLU (TFMOT's
    # Conv -> ReLU fusion): kernel ranges only, per output channel.
    assert sorted(quantizer_ranges(layers["Conv2D"])) == ["kernel_max",
                                                          "kernel_min"]
    assert quantizer_ranges(layers["Conv2D"])["kernel_min"].shape == (4,)
    assert sorted(quantizer_ranges(layers["ReLU"])) == ["output_max",
                                                        "output_min"]


def test_seed_custom_quantize_config_gives_four_bit_weights(tmp_path):
    LastValueQuantizer = qk.quantizers.LastValueQuantizer
    QuantizeConfig = qk.QuantizeConfig

    class ConvQuantizeConfig(QuantizeConfig):
        def get_weights_and_quantizers(self, layer):
            # Use 4-bits to quantized weights instead of 8.
            return [(layer.kernel,
                     LastValueQuantizer(num_bits=4, per_axis=True))]

        def get_activations_and_quantizers(self, layer):
            return []

        def get_output_quantizers(self, layer):
            return []

    model = qk.quantize_annotate_model(keras.Sequential([
        keras.Input((8, 8, 1)),
        qk.quantize_annotate_layer(L.Conv2D(4, 3), ConvQuantizeConfig()),
        L.ReLU(),
        L.Flatten(),
        L.Dense(3),
    ]))
    quantized_model = qk.quantize_apply(model)
    conv = wrapped(quantized_model)["Conv2D"]
    x = np.random.default_rng(0).random((4, 8, 8, 1), np.float32)
    quantized_model(x, training=True)
    # The kernel the convolution ran with has at most 15 levels per
    # output channel (4 bits, narrow range).
    variable, quantizer, variables = conv.quantizers.weights[0]
    kernel = np.asarray(quantizer(variable, training=False,
                                  weights=variables))
    for channel in range(4):
        assert len(np.unique(kernel[..., channel])) <= 15
    assert not any(n.startswith(("post_activation", "output"))
                   for n in quantizer_ranges(conv))
    path = qk.export_qat_model(quantized_model,
                               output=str(tmp_path / "conv4.onnx"))
    exported = onnx.load(path)
    int4 = [tuple(t.dims) for t in exported.graph.initializer
            if t.data_type == onnx.TensorProto.INT4]
    assert sorted(int4) == [(4,), (4, 1, 3, 3)]     # kernel, zero points
    got = run_onnx(exported, x)
    want = quantized_model.predict(x, verbose=0)
    assert np.abs(got - want).max() < 1e-5


def clip_value(x, low, high):
    return keras.ops.clip(x, low, high)


def test_seed_own_quantizer_runs_and_refuses_export(tmp_path):
    Quantizer = qk.quantizers.Quantizer
    QuantizeConfig = qk.QuantizeConfig

    class FixedRangeQuantizer(Quantizer):
        """Quantizer which has a fixed range between -1 and 1."""

        def build(self, tensor_shape, name, layer):
            # Create any variables needed by your quantizer.
            self.min_weight = layer.add_weight(
                name + '_min',
                initializer=keras.initializers.Constant(-1.0),
                trainable=False)
            self.max_weight = layer.add_weight(
                name + '_max',
                initializer=keras.initializers.Constant(1.0),
                trainable=False)

        def __call__(self, inputs, step, training, **kwargs):
            """Fictional quantizer."""
            return clip_value(inputs, self.min_weight, self.max_weight)

    class ConvQuantizeConfig(QuantizeConfig):
        def get_weights_and_quantizers(self, layer):
            return [(layer.kernel, FixedRangeQuantizer())]

        def get_activations_and_quantizers(self, layer):
            return []

        def get_output_quantizers(self, layer):
            return []

    model = keras.Sequential([
        keras.Input((4, 4, 1)),
        qk.quantize_annotate_layer(L.Conv2D(1, 1, use_bias=False,
                                            name="conv"),
                                   ConvQuantizeConfig())])
    model.layers[0].layer.kernel.assign(np.full((1, 1, 1, 1), 3.0))
    quantized = qk.quantize_apply(model)
    x = np.ones((1, 4, 4, 1), np.float32)
    # The clipped kernel (1.0, not 3.0) runs, in training and inference.
    assert np.allclose(quantized(x, training=True), 1.0)
    assert np.allclose(quantized.predict(x, verbose=0), 1.0)
    out = tmp_path / "fixed.onnx"
    with pytest.raises(QuantQDQError, match="layer 'conv'.*"
                       "FixedRangeQuantizer has no Q/DQ form"):
        qk.export_qat_model(quantized, output=str(out))
    assert not out.exists()


class MyLayer(L.Layer):
    """A custom layer with a kernel (the seed's `MyLayer`)."""

    def build(self, input_shape):
        self.kernel = self.add_weight(
            name="kernel", shape=(input_shape[-1], 3),
            initializer=keras.initializers.Constant(0.3337))

    def call(self, inputs):
        return keras.ops.matmul(inputs, self.kernel)


def test_seed_custom_layer_quantized_by_its_config():
    LastValueQuantizer = qk.quantizers.LastValueQuantizer
    QuantizeConfig = qk.QuantizeConfig
    NoOpQuantizeConfig = qk.NoOpQuantizeConfig

    class MyLayerQuantizeConfig(QuantizeConfig):
        def get_weights_and_quantizers(self, layer):
            return [(layer.kernel, LastValueQuantizer())]

        def get_activations_and_quantizers(self, layer):
            return []

        def get_output_quantizers(self, layer):
            return []

    model = qk.quantize_annotate_model(keras.Sequential([
        keras.Input((3,)),
        qk.quantize_annotate_layer(MyLayer(name="mine"),
                                   MyLayerQuantizeConfig()),
        qk.quantize_annotate_layer(MyLayer(name="float"),
                                   NoOpQuantizeConfig()),
    ]))
    with qk.quantize_scope({"MyLayer": MyLayer}):
        quantized_model = qk.quantize_apply(model)
    quantized_model(np.ones((2, 3), np.float32), training=True)
    mine = [l for l in quantized_model.layers if l.name == "quant_mine"][0]
    noop = [l for l in quantized_model.layers if l.name == "quant_float"][0]
    assert quantizer_ranges(noop) == {}
    # 8 bits, narrow, symmetric on max|w| = 0.3337: the kernel runs as
    # 127 levels of 0.3337/127, i.e. exactly itself; a row of ones gives
    # 3 * 0.3337 per unit, then the float layer multiplies by 3 * 0.3337.
    y = quantized_model.predict(np.ones((1, 3), np.float32), verbose=0)
    assert y == pytest.approx(np.full((1, 3), (3 * 0.3337) * 3 * 0.3337),
                              rel=1e-5)
    assert quantizer_ranges(mine)["kernel_max"] == pytest.approx(0.3337)
    # And it trains.
    quantized_model.compile("sgd", "mse")
    quantized_model.fit(np.ones((4, 3)), np.zeros((4, 3)), verbose=0)


# -- against TFMOT itself, on tf.keras --------------------------------------

def tf_keras_net(k):
    inputs = k.Input((8, 8, 2))
    x = k.layers.Conv2D(6, 3, padding="same")(inputs)
    x = k.layers.BatchNormalization()(x)
    x = k.layers.ReLU()(x)
    y = k.layers.DepthwiseConv2D(3, padding="same")(x)
    y = k.layers.BatchNormalization()(y)
    x = k.layers.Add()([x, y])
    x = k.layers.AveragePooling2D(2)(x)
    x = k.layers.Conv2D(4, 1, activation="relu")(x)
    x = k.layers.Conv2D(4, 1)(x)
    x = k.layers.BatchNormalization()(x)
    x = k.layers.Activation("relu")(x)
    x = k.layers.Flatten()(x)
    x = k.layers.Dense(5, activation="softmax")(x)
    x = k.layers.Dense(5)(x)
    return k.Model(inputs, k.layers.Activation("softmax")(x))


def test_numbers_match_tfmot_on_tf_keras():
    """The same tf.keras model, quantized by TFMOT and by quant_qdq.keras,
    run in training mode on the same batches (ranges move the same way)
    then in inference: the same outputs, the same ranges."""
    import tensorflow_model_optimization as tfmot
    import tf_keras
    tf_keras.utils.set_random_seed(3)
    model = tf_keras_net(tf_keras)
    theirs = tfmot.quantization.keras.quantize_model(model)
    ours = qk.quantize_model(model)
    rng = np.random.default_rng(1)
    for _ in range(3):
        x = rng.normal(size=(8, 8, 8, 2)).astype(np.float32)
        np.testing.assert_allclose(ours(x, training=True).numpy(),
                                   theirs(x, training=True).numpy(),
                                   atol=2e-6)
    x = rng.normal(size=(16, 8, 8, 2)).astype(np.float32)
    np.testing.assert_allclose(ours(x, training=False).numpy(),
                               theirs(x, training=False).numpy(), atol=2e-6)

    def ranges(m):
        found = {}
        for v in m.non_trainable_weights:
            name = v.name.split(":")[0]
            if name.endswith(("_min", "_max")):
                found[name] = np.asarray(v.numpy()).ravel()
        return found

    mine, tfmots = ranges(ours), ranges(theirs)
    assert sorted(mine) == sorted(tfmots) and len(mine) >= 12
    for name, value in tfmots.items():
        np.testing.assert_allclose(mine[name], value, atol=1e-6,
                                   err_msg=name)


# -- export, on a model trained on real data ---------------------------------

def digits():
    from sklearn.datasets import load_digits
    data = load_digits()
    x = (data.images / 16.0).astype(np.float32)[..., None]
    return x, data.target.astype(np.int64)


def test_trained_digits_model_exports_what_it_computes(tmp_path):
    x, y = digits()
    keras.utils.set_random_seed(0)
    model = keras.Sequential([
        keras.Input((8, 8, 1), name="image"),
        L.Conv2D(8, 3, padding="same"), L.BatchNormalization(), L.ReLU(),
        L.MaxPooling2D(), L.Conv2D(16, 3, padding="same", activation="relu"),
        L.Flatten(), L.Dense(10)])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(keras.optimizers.Adam(0.01), loss)
    model.fit(x[:1400], y[:1400], epochs=8, batch_size=32, verbose=0)
    float_accuracy = (model.predict(x[1400:], verbose=0).argmax(1)
                      == y[1400:]).mean()
    # TFMOT's flow: fine-tune the trained float model quantized.
    qat = qk.quantize_model(model)
    qat.compile(keras.optimizers.Adam(0.001), loss)
    qat.fit(x[:1400], y[:1400], epochs=1, batch_size=32, verbose=0)
    logits = qat.predict(x[1400:], verbose=0)
    accuracy = (logits.argmax(1) == y[1400:]).mean()
    assert float_accuracy > 0.85 and accuracy > float_accuracy - 0.02
    path = qk.export_qat_model(qat, output=str(tmp_path / "digits.onnx"))
    exported = onnx.load(path)
    onnx.checker.check_model(exported, full_check=True)
    ops = [n.op_type for n in exported.graph.node]
    # The input, the two ReLU outputs, the logits; three int8 weights.
    assert ops.count("QuantizeLinear") == 4
    assert ops.count("DequantizeLinear") == 7
    # TFMOT's activations are asymmetric: uint8 with zero points.
    first = [n for n in exported.graph.node if n.op_type == "QuantizeLinear"]
    zero_points = {t.name: t for t in exported.graph.initializer}
    assert zero_points[first[0].input[2]].data_type == onnx.TensorProto.UINT8
    got = run_onnx(exported, x[1400:])
    # One level apart at most where a value sits within float rounding of
    # a level boundary (TensorFlow rounds half up, ONNX half to even).
    assert (got.argmax(1) == logits.argmax(1)).mean() >= 0.995
    assert np.median(np.abs(got - logits)) < 1e-5


def test_unknown_layer_stays_float_with_a_warning():
    model = keras.Sequential([keras.Input((3,)), MyLayer(name="custom"),
                              L.Dense(2)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        quantized = qk.quantize_model(model)
    assert any("custom (MyLayer)" in str(w.message) and "float" in
               str(w.message) for w in caught)
    # Nothing quantized reads the input: it stays float too.
    assert kinds(quantized) == ["MyLayer", "QuantizeWrapper"]


def test_saved_model_loads_in_quantize_scope(tmp_path):
    class Wide(qk.QuantizeConfig):
        def get_weights_and_quantizers(self, layer):
            return [(layer.kernel, qk.quantizers.LastValueQuantizer(
                num_bits=6, per_axis=True, symmetric=True,
                narrow_range=False))]

    model = keras.Sequential([
        keras.Input((4,)),
        qk.quantize_annotate_layer(L.Dense(3, name="fc"), Wide())])
    quantized = qk.quantize_apply(model)
    x = np.random.default_rng(2).normal(size=(5, 4)).astype(np.float32)
    quantized(x, training=True)
    want = quantized.predict(x, verbose=0)
    path = str(tmp_path / "q.keras")
    quantized.save(path)
    with pytest.raises(Exception, match="quantize_scope"):
        keras.models.load_model(path)
    with qk.quantize_scope({"Wide": Wide}):
        loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), want, atol=1e-6)


@pytest.mark.parametrize("suffix", [".h5", ".keras", ""])
def test_tf_keras_model_saves_and_loads_in_quantize_scope(tmp_path, suffix):
    """tf.keras's three formats (HDF5, .keras, a SavedModel folder)."""
    import tf_keras

    class Wide(qk.QuantizeConfig):
        def get_weights_and_quantizers(self, layer):
            return [(layer.kernel, qk.quantizers.LastValueQuantizer(
                num_bits=6, per_axis=True))]

    model = tf_keras.Sequential([
        tf_keras.Input((4,)),
        qk.quantize_annotate_layer(tf_keras.layers.Dense(3), Wide()),
        tf_keras.layers.Dense(2)])
    quantized = qk.quantize_apply(qk.quantize_annotate_model(model))
    x = np.random.default_rng(5).normal(size=(5, 4)).astype(np.float32)
    quantized(x, training=True)
    want = quantized.predict(x, verbose=0)
    path = str(tmp_path / ("tf_keras" + suffix))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # HDF5 is legacy, says tf.keras
        quantized.save(path)
    with qk.quantize_scope({"Wide": Wide}):
        loaded = tf_keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), want, atol=1e-6)
    np.testing.assert_allclose(run_onnx(qk.export_qat_model(loaded), x), want,
                               atol=1e-5)


def test_saved_default_model_exports_from_its_file(tmp_path):
    """A model on the default scheme needs no scope: the file exports as
    qdq-opt reads it (the importer loads it)."""
    model = keras.Sequential([keras.Input((4,), name="features"),
                              L.Dense(3, activation="relu"), L.Dense(2)])
    quantized = qk.quantize_model(model)
    x = np.random.default_rng(3).normal(size=(6, 4)).astype(np.float32)
    quantized(x, training=True)
    path = str(tmp_path / "default.keras")
    quantized.save(path)
    exported = qk.export_qat_model(path)
    got = run_onnx(exported, x)
    assert np.abs(got - quantized.predict(x, verbose=0)).max() < 1e-5


def test_six_bit_weights_export_exactly_and_six_bit_activations_refuse(
        tmp_path):
    """ONNX stores 4, 8 or 16 bits: a 6-bit weight is stored as its int8
    integers (TensorFlow's rounding, so exactly the model's); a 6-bit
    activation has no QuantizeLinear form and is refused by name."""
    class SixBits(qk.QuantizeConfig):
        def get_weights_and_quantizers(self, layer):
            return [(layer.kernel, qk.quantizers.LastValueQuantizer(
                num_bits=6, per_axis=True, symmetric=True,
                narrow_range=False))]

    class SixBitOutput(qk.QuantizeConfig):
        def get_output_quantizers(self, layer):
            return [qk.quantizers.MovingAverageQuantizer(num_bits=6)]

    def net(config):
        return qk.quantize_apply(keras.Sequential([
            keras.Input((5,)),
            qk.quantize_annotate_layer(L.Dense(4, name="fc"), config)]))

    x = np.random.default_rng(4).normal(size=(16, 5)).astype(np.float32)
    weights = net(SixBits())
    weights(x, training=True)
    exported = qk.export_qat_model(weights)
    kernel = [t for t in exported.graph.initializer if t.name.endswith(
        "kernel") or t.name.endswith("kernel_stored")]
    values = onnx.numpy_helper.to_array(kernel[0])
    assert kernel[0].data_type == onnx.TensorProto.INT8
    assert values.min() >= -32 and values.max() <= 31
    assert values.min() == -32 or values.max() == 31
    np.testing.assert_allclose(run_onnx(exported, x),
                               weights.predict(x, verbose=0), atol=1e-6)

    outputs = net(SixBitOutput())
    outputs(x, training=True)
    out = tmp_path / "six.onnx"
    with pytest.raises(QuantQDQError, match="layer 'fc': output quantizer "
                       "MovingAverageQuantizer has 6 bits"):
        qk.export_qat_model(outputs, output=str(out))
    assert not out.exists()


def test_tfmot_signatures_run():
    """TFMOT's optional arguments: the wrappers' name prefix, and its
    default scheme named explicitly."""
    import tensorflow_model_optimization as tfmot
    import tf_keras
    model = tf_keras.Sequential([tf_keras.Input((3,)),
                                 tf_keras.layers.Dense(2, name="fc")])
    quantized = qk.quantize_model(model, quantized_layer_name_prefix="q_")
    assert [l.name for l in quantized.layers][-1] == "q_fc"
    scheme = tfmot.quantization.keras.default_8bit.Default8BitQuantizeScheme()
    applied = qk.quantize_apply(qk.quantize_annotate_model(model), scheme)
    assert [l.name for l in applied.layers][-1] == "quant_fc"
    with pytest.raises(ValueError, match="scheme object is not supported"):
        qk.quantize_apply(qk.quantize_annotate_model(model), object())


def test_layer_then_relu_keeps_its_kernel_quantized():
    """Where TFMOT differs on purpose: its Conv/Dense -> ReLU transform
    gives the layer a NoOp config, leaving its kernel in float; here the
    kernel stays quantized and only the output's quantization moves to the
    ReLU, as TFMOT's own Conv -> BatchNorm -> ReLU transform does."""
    import tensorflow_model_optimization as tfmot
    import tf_keras
    model = tf_keras.Sequential([
        tf_keras.Input((4, 4, 2)), tf_keras.layers.Conv2D(3, 1, name="conv"),
        tf_keras.layers.ReLU(name="relu")])
    theirs = tfmot.quantization.keras.quantize_model(model)
    ours = qk.quantize_model(model)

    def ranges(m):  # the layers' (the input's QuantizeLayer aside)
        return sorted(v.name.split(":")[0] for v in m.non_trainable_weights
                      if v.name.split(":")[0].endswith(("_min", "_max"))
                      and v.name.startswith("quant_"))

    assert "quant_conv/kernel_min" not in ranges(theirs)
    assert ranges(ours) == sorted(ranges(theirs) + ["quant_conv/kernel_max",
                                                    "quant_conv/kernel_min"])


def test_scoped_attributes_nest_and_leave_the_layer_as_it_was():
    from quant_qdq.keras.quantize_wrapper import scoped_attributes
    dense = L.Dense(2)
    dense.build((None, 3))
    kernel = dense.kernel
    with scoped_attributes(dense) as outer:
        outer.capture(setattr, dense, "kernel", "outer")
        with scoped_attributes(dense) as inner:
            assert dense.kernel == "outer"
            inner.capture(setattr, dense, "bias", "inner")
            assert (dense.kernel, dense.bias) == ("outer", "inner")
        assert dense.kernel == "outer" and not isinstance(dense.bias, str)
    assert type(dense) is L.Dense and dense.kernel is kernel
    assert "_qdq_scoped" not in vars(dense)


def test_batch_norm_no_fusion_takes_warns():
    """TFMOT refuses a BatchNormalization that follows no convolution;
    it stays in float here, with the warning that says so."""
    model = keras.Sequential([keras.Input((3,)),
                              L.BatchNormalization(name="bn"), L.Dense(2)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        quantized = qk.quantize_model(model)
    assert any("bn (BatchNormalization)" in str(w.message) for w in caught)
    assert kinds(quantized) == ["BatchNormalization", "QuantizeWrapper"]


def test_quantize_scope_loads_tf_keras_models_in_a_fresh_process(tmp_path):
    """tf.keras is imported by the loading, inside the scope: the scope
    covers it anyway."""
    import subprocess
    import sys
    import tf_keras

    class Wide(qk.QuantizeConfig):
        def get_weights_and_quantizers(self, layer):
            return [(layer.kernel, qk.quantizers.LastValueQuantizer())]

    model = tf_keras.Sequential([
        tf_keras.Input((4,)),
        qk.quantize_annotate_layer(tf_keras.layers.Dense(3, name="fc"),
                                   Wide())])
    quantized = qk.quantize_apply(model)
    quantized(np.ones((2, 4), np.float32), training=True)
    quantized.save(str(tmp_path / "saved"))
    code = (
        "import os, sys\n"
        "os.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'\n"
        "import quant_qdq.keras as qk\n"
        "assert 'tf_keras' not in sys.modules\n"
        "class Wide(qk.QuantizeConfig):\n"
        "    def get_weights_and_quantizers(self, layer):\n"
        "        return [(layer.kernel, "
        "qk.quantizers.LastValueQuantizer())]\n"
        "with qk.quantize_scope({'Wide': Wide}):\n"
        "    model = qk.load_keras_model(sys.argv[1])\n"
        "print([type(l).__name__ for l in model.layers])\n")
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path / "saved")],
                         capture_output=True, text=True, check=True)
    assert "QuantizeWrapper" in run.stdout


def test_quantize_apply_needs_annotations():
    model = keras.Sequential([keras.Input((3,)), L.Dense(2)])
    with pytest.raises(ValueError, match="no annotated layer"):
        qk.quantize_apply(model)
    with pytest.raises(ValueError, match="keras.Model"):
        qk.quantize_model("model.keras")


def test_importing_quant_qdq_keras_loads_no_keras():
    import subprocess
    import sys
    code = ("import sys, quant_qdq.keras as qk; "
            "assert 'keras' not in sys.modules, 'keras'; "
            "assert 'tensorflow' not in sys.modules; "
            "qk.QuantizeConfig; assert 'keras' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
