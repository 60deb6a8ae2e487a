#!/usr/bin/env python3
"""Which tensors and weights get fake quantization: quant-qdq's placement
(NVIDIA's toolkit's rules, with its library case) against TensorFlow Model
Optimization's quantize_model, on the same tf.keras models.

For each keras.applications model (random weights, 96x96), prints the
weights each side quantizes, and the activation tensors (named by the
layer that produces them; the model input by its own name) quantized by
both, by quant-qdq only and by TFMOT only, the last two broken down by the
producing layer's class. TFMOT's quantization ops are read from the traced
graph of its quantized model (FakeQuantWithMinMaxVars*, named after the
wrapped layer); quant-qdq's from insert-qdq's report. A tensor quantized
after a pass-through layer (padding, max pooling, reshape) counts as the
tensor before it. A model TFMOT refuses is reported with its error.

usage: bench/keras/tfmot_placement.py [MODEL ...]
"""

import collections
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf
import tensorflow_model_optimization as tfmot
import tf_keras

import quant_qdq as qq

MODELS = {
    "ResNet50": qq.ResNetV1QDQCase, "ResNet50V2": qq.ResNetV2QDQCase,
    "MobileNetV2": qq.MobileNetQDQCase,
    "EfficientNetB0": qq.EfficientNetQDQCase,
    "InceptionV3": qq.InceptionQDQCase, "DenseNet121": None,
}
SIZE = 96


def producers(model):
    """{layer name: [producer layer name of each input]}."""
    result = {}
    for layer in model.layers:
        for node in layer._inbound_nodes:
            result[layer.name] = [t._keras_history[0].name
                                  for t in node.keras_inputs]
    return result


def ours(model, case):
    report = qq.insert_qdq(qq.import_keras(model),
                           custom_qdq_cases=[case()] if case else None)
    inputs = producers(model)
    tensors, weights = set(), set()
    for line in report.splitlines()[1:]:
        if line.startswith("#") or not line.strip():
            continue
        name, _, positions, weight, _ = line.split(None, 4)
        if "/" in name:
            continue  # the import's layout transposes
        for i in [int(p) for p in positions.strip("[]").split(",") if p]:
            tensors.add(inputs[name][i])
        if weight == "yes":
            weights.add(name)
    return tensors, weights


def tfmot_placement(model):
    quantized = tfmot.quantization.keras.quantize_model(model)
    spec = tf.TensorSpec([1, SIZE, SIZE, 3], tf.float32)
    graph = tf.function(lambda x: quantized(x, training=False)) \
        .get_concrete_function(spec).graph
    tensors, weights = set(), set()
    input_name = model.inputs[0]._keras_history[0].name
    for op in graph.get_operations():
        if not op.type.startswith("FakeQuantWithMinMaxVars"):
            continue
        scope = op.name.split("/")[1]
        if re.fullmatch(r"quantize_layer(_\d+)?", scope):
            tensors.add(input_name)
            continue
        layer = re.sub(r"^quant_", "", scope)
        if op.type.endswith("PerChannel") or "/LastValueQuant/" in op.name:
            weights.add(layer)
        else:
            tensors.add(layer)
    return tensors, weights


# Layers that only move or select values: a tensor quantized before one is
# quantized after it (TensorRT moves Q/DQ across them; insert-qdq does too).
PASS_THROUGH = ("ZeroPadding2D", "MaxPooling2D", "Reshape", "Flatten",
                "Dropout")


def through_pass_through(model, tensors):
    """Each tensor named by the tensor it passes through from."""
    inputs = producers(model)
    result = set()
    for name in tensors:
        while type(model.get_layer(name)).__name__ in PASS_THROUGH:
            name = inputs[name][0]
        result.add(name)
    return result


def by_class(model, names):
    classes = collections.Counter(type(model.get_layer(n)).__name__
                                  for n in names)
    return ", ".join("%s %d" % kv for kv in sorted(classes.items())) or "-"


def main(names):
    for name in names or MODELS:
        model = getattr(tf_keras.applications, name)(
            weights=None, input_shape=(SIZE, SIZE, 3))
        our_tensors, our_weights = ours(model, MODELS[name])
        our_tensors = through_pass_through(model, our_tensors)
        print("%s (%d layers; quant-qdq case %s)" % (
            name, len(model.layers),
            MODELS[name].__name__ if MODELS[name] else "none"))
        try:
            tf_tensors, tf_weights = tfmot_placement(model)
        except Exception as error:  # TFMOT's refusals are the finding.
            first = str(error).strip().splitlines()[0][:160]
            print("  TFMOT refuses the model: %s: %s"
                  % (type(error).__name__, first))
            print("  quant-qdq: %d tensors, %d weights"
                  % (len(our_tensors), len(our_weights)))
            continue
        tf_tensors = through_pass_through(model, tf_tensors)
        print("  weights: quant-qdq %d, TFMOT %d, both %d"
              % (len(our_weights), len(tf_weights),
                 len(our_weights & tf_weights)))
        print("  tensors: both %d; quant-qdq only %d (%s); TFMOT only %d "
              "(%s)" % (len(our_tensors & tf_tensors),
                        len(our_tensors - tf_tensors),
                        by_class(model, our_tensors - tf_tensors),
                        len(tf_tensors - our_tensors),
                        by_class(model, tf_tensors - our_tensors)))


if __name__ == "__main__":
    main(sys.argv[1:])
