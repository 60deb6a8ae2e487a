"""Keras models in: the translation of keras.Model layer graphs.

TensorFlow makes its bundled protobuf global when it loads, after which
Debian's torch crashes in torch.onnx.export; these tests therefore run in a
pytest process of their own (test/python/keras.test), never beside the
torch tests.
"""

import functools
import os
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras
import numpy as np
import pytest

import quant_qdq
from quant_qdq import (EfficientNetQDQCase, InceptionQDQCase,
                       MobileNetQDQCase, QuantizationSpec, ResNetV1QDQCase,
                       ResNetV2QDQCase, import_keras, quantize_model)
from quant_qdq.keras import KerasImportError
from qdq_helpers import parse_report, run_onnx

APPLICATIONS = ["ResNet50", "ResNet50V2", "MobileNetV2", "EfficientNetB0",
                "InceptionV3", "DenseNet121"]
SIZE = 96  # InceptionV3's smallest input is 75


def randomize_batch_norms(model, seed=1):
    """Random BN statistics, so that activations keep a useful range
    through 50-100 layers of random weights."""
    rs = np.random.RandomState(seed)
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            c = layer.moving_mean.shape[0]
            layer.moving_mean.assign(rs.randn(c).astype("f") * 0.1)
            layer.moving_variance.assign(rs.uniform(0.5, 2, c).astype("f"))
            if layer.scale:
                layer.gamma.assign(rs.uniform(0.5, 1.5, c).astype("f"))
            if layer.center:
                layer.beta.assign(rs.randn(c).astype("f") * 0.1)


@functools.lru_cache(maxsize=None)
def application(name):
    model = getattr(keras.applications, name)(
        weights=None, input_shape=(SIZE, SIZE, 3), classifier_activation=None)
    randomize_batch_norms(model)
    return model


def assert_close_to_keras(model, onnx_model, x):
    want = np.asarray(model(x, training=False))
    got = run_onnx(onnx_model, x)
    assert got.shape == want.shape
    error = np.abs(got - want).max() / np.abs(want).max()
    assert error < 1e-4, error


@pytest.mark.parametrize("name", APPLICATIONS)
def test_application_computes_what_keras_computes(name):
    """The float translation, exported to ONNX, run by ONNX Runtime: the
    Keras model's numbers on a batch of 2 (the batch stays dynamic)."""
    model = application(name)
    module = import_keras(model)
    # Images stay channel-first from the input on (EfficientNet's
    # squeeze-and-excitation 1x1 images change layout by reshapes).
    assert str(module).count("quant_qdq.transpose") == 1
    onnx_model = quant_qdq.export_onnx(module)
    x = np.random.RandomState(0).rand(2, SIZE, SIZE, 3).astype("f") * 255
    assert_close_to_keras(model, onnx_model, x)
    assert onnx_model.graph.input[0].name == model.inputs[0]._keras_history[
        0].name


# -- placement against the seed toolkit's rules, by Keras layer name --------

CONVS = (keras.layers.Conv2D, keras.layers.DepthwiseConv2D)
ACTIVATIONS = (keras.layers.Activation, keras.layers.ReLU)


def producers_and_fanout(model):
    producers, fanout = {}, {}
    for layer in model.layers:
        for node in layer._inbound_nodes:
            tensors = node.input_tensors
            producers[layer.name] = [t._keras_history[0] for t in tensors]
            for t in tensors:
                key = t._keras_history[0].name
                fanout[key] = fanout.get(key, 0) + 1
    return producers, fanout


SEED_CHAINS = ((), (keras.layers.BatchNormalization,),
               (ACTIVATIONS, keras.layers.BatchNormalization),
               (keras.layers.Dropout, ACTIVATIONS,
                keras.layers.BatchNormalization))
# This project's rule (docs/InsertQDQ.md): each step optional, which adds
# Dropout <- BN <- Conv (EfficientNet's blocks: the dropout follows the
# projection BN) and the BN-folded chains. Dropout is gone at inference, so
# TensorRT fuses those Adds into the convolution as well.
OUR_CHAINS = SEED_CHAINS + ((keras.layers.Dropout,
                             keras.layers.BatchNormalization),
                            (ACTIVATIONS,), (keras.layers.Dropout,),
                            (keras.layers.Dropout, ACTIVATIONS))


def conv_chain(layer, producers, chains):
    """Whether `layer` ends one of `chains` that start at a convolution:
    the inputs the residual rule leaves unquantized."""
    for kinds in chains:
        current, ok = layer, True
        for kind in kinds:
            if not isinstance(current, kind):
                ok = False
                break
            current = producers[current.name][0]
        if ok and isinstance(current, CONVS):
            return True
    return False


def seed_placement(model, rules, chains=OUR_CHAINS):
    """{layer: (quantized input positions, weight quantized)} by the rules
    of NVIDIA's toolkit (docs/InsertQDQ.md, REFERENCE.md), computed on the
    Keras graph itself."""
    producers, fanout = producers_and_fanout(model)
    placement = {}
    for layer in model.layers:
        if isinstance(layer, (keras.layers.Conv2D, keras.layers.Dense,
                              keras.layers.DepthwiseConv2D)):
            placement[layer.name] = ([0], True)
        elif isinstance(layer, (keras.layers.AveragePooling2D,
                                keras.layers.GlobalAveragePooling2D)):
            placement[layer.name] = ([0], False)
        else:
            placement[layer.name] = ([], False)
        inputs = producers.get(layer.name, [])
        if "residual" in rules and isinstance(layer, keras.layers.Add):
            skip = next((i for i, p in enumerate(inputs)
                         if conv_chain(p, producers, chains)
                         and fanout[p.name] == 1), None)
            placement[layer.name] = (
                [i for i in range(len(inputs)) if i != skip], False)
        if "bn" in rules and isinstance(layer,
                                        keras.layers.BatchNormalization) \
                and not isinstance(inputs[0], CONVS):
            placement[layer.name] = ([0], False)
        if "maxpool" in rules and isinstance(layer,
                                             keras.layers.MaxPooling2D):
            placement[layer.name] = ([0], False)
        if "multiply" in rules and isinstance(layer, keras.layers.Multiply):
            placement[layer.name] = (list(range(len(inputs))), False)
    return placement


CASES = {
    "ResNet50": (ResNetV1QDQCase, {"residual"}),
    "ResNet50V2": (ResNetV2QDQCase, {"residual", "bn", "maxpool"}),
    "MobileNetV2": (MobileNetQDQCase, {"residual"}),
    "EfficientNetB0": (EfficientNetQDQCase, {"residual", "multiply"}),
    "InceptionV3": (InceptionQDQCase, {"maxpool"}),
    "DenseNet121": (None, set()),
}


@pytest.mark.parametrize("name", APPLICATIONS)
def test_application_placement_follows_the_seed_rules(name, tmp_path):
    model = application(name)
    case, rules = CASES[name]
    report = str(tmp_path / "report.txt")
    quantize_model(model, custom_qdq_cases=[case()] if case else None,
                   report=report)
    with open(report) as f:
        rows = parse_report(f.read())
    got = {layer: rows[layer][:2] for layer in rows if "/" not in layer}
    want = seed_placement(model, rules)
    want.pop(model.inputs[0]._keras_history[0].name)
    assert got == want
    # Where the seed's literal chains decide otherwise: only EfficientNet's
    # Adds after Dropout <- BN <- Conv.
    literal = seed_placement(model, rules, SEED_CHAINS)
    differ = {layer for layer in want if want[layer] != literal[layer]}
    assert len(differ) == (9 if name == "EfficientNetB0" else 0)


# -- QuantizationSpec written for NVIDIA's toolkit ----------------------------

def test_spec_by_keras_name_and_class(tmp_path):
    model = application("ResNet50")
    spec = QuantizationSpec()
    spec.add(name=["conv2_block1_1_conv", "predictions"])
    spec.add(name="Add", is_keras_class=True, quantization_index=[1])
    report = str(tmp_path / "report.txt")
    quantize_model(model, quantization_mode="partial",
                   quantization_spec=spec, report=report)
    with open(report) as f:
        rows = parse_report(f.read())
    quantized = {layer: row[:2] for layer, row in rows.items()
                 if row[0] or row[1]}
    adds = [l.name for l in model.layers if isinstance(l, keras.layers.Add)]
    assert quantized == dict(
        {"conv2_block1_1_conv": ([0], True), "predictions": ([0], True)},
        **{add: ([1], False) for add in adds})


def test_keras_classes_that_differ_from_their_op(tmp_path):
    """MobileNetV2's ReLU(max_value=6) is an activation op that keeps its
    Keras class: a spec on class ReLU reaches all 35 of them."""
    model = application("MobileNetV2")
    spec = QuantizationSpec()
    spec.add(name="ReLU", is_keras_class=True)
    report = str(tmp_path / "report.txt")
    quantize_model(model, quantization_mode="partial",
                   quantization_spec=spec, report=report)
    with open(report) as f:
        text = f.read()
    rows = parse_report(text)
    relus = [l.name for l in model.layers if isinstance(l, keras.layers.ReLU)]
    assert len(relus) == 35
    assert {l for l, row in rows.items() if row[0]} == set(relus)
    assert all(line.split()[1] == "ReLU" for line in text.splitlines()
               if line.split()[:1] and line.split()[0] in relus)


# -- model forms ----------------------------------------------------------

def small_cnn(layers):
    inputs = layers.Input((12, 12, 2), name="image")
    x = layers.Conv2D(4, 3, padding="same", activation="relu",
                      name="conv")(inputs)
    x = layers.MaxPooling2D(name="pool")(x)
    x = layers.Flatten(name="flatten")(x)
    return inputs, layers.Dense(3, name="dense")(x)


def test_nested_models_are_flattened():
    inner_in = keras.Input((6, 6, 4))
    y = keras.layers.Conv2D(4, 1, name="inner_conv")(inner_in)
    y = keras.layers.BatchNormalization(name="inner_bn")(y)
    inner = keras.Model(inner_in, y, name="inner")
    inputs = keras.Input((6, 6, 4), name="x")
    z = keras.layers.Add(name="add")([inner(inputs), inputs])
    z = keras.layers.GlobalAveragePooling2D(name="gap")(z)
    model = keras.Model(inputs, keras.layers.Dense(2, name="fc")(z))
    randomize_batch_norms(inner)
    module = import_keras(model)
    names = {layer.name for layer in quant_qdq.Graph(module)}
    assert {"inner_conv", "inner_bn", "add", "gap", "fc"} <= names
    x = np.random.RandomState(0).randn(3, 6, 6, 4).astype("f")
    assert_close_to_keras(model, quant_qdq.export_onnx(module), x)


@pytest.mark.warnings_checked
def test_shared_layers_translate_at_every_call():
    """A layer called twice (and so a second name, conv_1) is still the
    layer it is: a conv2d both times, no unknown layer."""
    shared = keras.layers.Conv2D(4, 3, padding="same", name="conv")
    inputs = keras.Input((6, 6, 4), name="x")
    y = keras.layers.ReLU(name="relu")(shared(inputs))
    y = keras.layers.GlobalAveragePooling2D(name="gap")(shared(y))
    model = keras.Model(inputs, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", quant_qdq.QuantQDQWarning)
        module = import_keras(model)
    graph = quant_qdq.Graph(module)
    assert graph.get_layer("conv").class_name == "Conv2D"
    assert graph.get_layer("conv_1").class_name == "Conv2D"
    x = np.random.RandomState(0).randn(2, 6, 6, 4).astype("f")
    assert_close_to_keras(model, quant_qdq.export_onnx(module), x)


def test_sequential_and_tf_keras():
    import tf_keras
    for layers, build in ((keras.layers, keras.Sequential),
                          (tf_keras.layers, tf_keras.Sequential)):
        model = build([layers.Input((12, 12, 2)),
                       layers.Conv2D(4, 3, strides=2, padding="same",
                                     name="conv"),
                       layers.ReLU(max_value=6.0, name="relu6"),
                       layers.DepthwiseConv2D(3, padding="same",
                                              depth_multiplier=2, name="dw"),
                       layers.AveragePooling2D(3, 1, padding="same",
                                               name="avg"),
                       layers.Flatten(name="flatten"),
                       layers.Dense(5, activation="softmax", name="fc")])
        module = import_keras(model)
        graph = quant_qdq.Graph(module)
        assert graph.get_layer("dw").class_name == "DepthwiseConv2D"
        assert graph.get_layer("relu6").class_name == "ReLU"
        x = np.random.RandomState(0).randn(2, 12, 12, 2).astype("f")
        assert_close_to_keras(model, quant_qdq.export_onnx(module), x)


def test_files(tmp_path):
    """.keras and .h5 by Keras 3, a SavedModel folder by tf.keras."""
    import tf_keras
    inputs, outputs = small_cnn(keras.layers)
    model = keras.Model(inputs, outputs)
    x = np.random.RandomState(0).randn(2, 12, 12, 2).astype("f")
    for suffix in (".keras", ".h5"):
        path = str(tmp_path / ("model" + suffix))
        model.save(path)
        q = quantize_model(path, integer_weights=False)
        assert {n.name for n in q.graph.node} >= {"conv", "dense"}
        assert_close_to_keras(model, quant_qdq.export_onnx(
            quant_qdq.load_module(path)), x)
    inputs, outputs = small_cnn(tf_keras.layers)
    legacy = tf_keras.Model(inputs, outputs)
    folder = str(tmp_path / "saved_model")
    legacy.save(folder, save_format="tf")
    assert_close_to_keras(legacy, quant_qdq.export_onnx(
        quant_qdq.load_module(folder)), x)


@pytest.mark.warnings_checked
def test_unknown_layers_stay_in_float():
    inputs = keras.Input((8, 8, 3), name="x")
    y = keras.layers.Conv2D(4, 3, name="conv")(inputs)
    y = keras.layers.Lambda(lambda t: t * 2.0, name="double")(y)
    y = keras.layers.Conv2D(4, 3, name="conv2")(y)
    model = keras.Model(inputs, y)
    with pytest.warns(quant_qdq.QuantQDQWarning,
                      match=r"Lambda \(double\).*stay in float"):
        module = import_keras(model)
    graph = quant_qdq.Graph(module)
    assert graph.get_layer("double").class_name == "Lambda"
    rows = parse_report(quant_qdq.insert_qdq(module))
    assert rows["conv"][:2] == ([0], True)
    assert rows["conv2"][:2] == ([0], True)
    assert rows["double"][:2] == ([], False)


def test_errors():
    class Subclassed(keras.Model):
        def call(self, x):
            return x * 2

    with pytest.raises(KerasImportError, match="no layer graph"):
        import_keras(Subclassed())
    inputs = keras.Input((3, 8, 8))
    model = keras.Model(inputs, keras.layers.Conv2D(
        2, 3, data_format="channels_first", name="cf")(inputs))
    with pytest.raises(KerasImportError, match="'cf'.*channels_first"):
        import_keras(model)
    with pytest.raises(ValueError, match="not a Keras model"):
        quant_qdq.load_keras_model(__file__)
    with pytest.raises(TypeError, match="keras.Model"):
        import_keras(object())


def test_unforeseen_configuration_names_the_layer(monkeypatch):
    from quant_qdq.keras import layer_translator

    def broken(self, layer, config, inputs, out):
        return config["no such key"]

    monkeypatch.setitem(layer_translator._TRANSLATIONS, "Dense", broken)
    inputs = keras.Input((4,), name="x")
    model = keras.Model(inputs, keras.layers.Dense(2, name="fc")(inputs))
    with pytest.raises(KerasImportError,
                       match=r"layer 'fc' \(Dense\): cannot translate its "
                             r"configuration: KeyError"):
        import_keras(model)
