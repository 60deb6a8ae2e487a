#!/usr/bin/env python3
"""TFMOT's API, TFMOT's own and quant_qdq.keras's, on the digits CNN:
the same tf.keras model, trained in float on 70% of scikit-learn's
handwritten digits, then quantized with each side's `quantize_model`
(TFMOT's default 8-bit scheme) and fine-tuned for the same epochs from the
same weights and batch order. Reports, on the 540 held-out digits:

  FP32            the trained float model;
  TFMOT           tensorflow_model_optimization's quantize_model, after
                  fine-tuning (its fake quantization, in TensorFlow);
  quant_qdq.keras the same with `import quant_qdq.keras as qk`, after
                  fine-tuning;
  ONNX            quant_qdq.keras's model exported with export_qat_model
                  and run by ONNX Runtime, and how many of its classes
                  agree with Keras's;

and the fine-tuning seconds of each (the same machine, one run after the
other). TFMOT exports no ONNX, so its row has none.

usage: bench/qat/digits_tfmot.py [--epochs N] [--fp32-epochs N]
"""

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import reproducible  # noqa: E402,F401  (before TensorFlow)

import numpy as np  # noqa: E402
import tensorflow_model_optimization as tfmot  # noqa: E402
import tf_keras  # noqa: E402

import quant_qdq.keras as qk  # noqa: E402
from common import ort  # noqa: E402
from common.digits_qat import split  # noqa: E402
from common.table import MarkdownTable  # noqa: E402

L = tf_keras.layers


def digits_net():
    """Conv-BN-ReLU twice, max pooling, a residual Add, global average
    pooling and a classifier: the patterns TFMOT's scheme fuses."""
    inputs = tf_keras.Input((8, 8, 1), name="image")
    x = L.Conv2D(16, 3, padding="same", use_bias=False)(inputs)
    x = L.ReLU()(L.BatchNormalization()(x))
    y = L.Conv2D(16, 3, padding="same", use_bias=False)(x)
    y = L.ReLU()(L.BatchNormalization()(y))
    x = L.MaxPooling2D()(L.Add()([x, y]))
    x = L.Conv2D(32, 3, padding="same", activation="relu")(x)
    x = L.GlobalAveragePooling2D()(x)
    return tf_keras.Model(inputs, L.Dense(10)(x))


def train(model, x, y, epochs, lr, seed):
    tf_keras.utils.set_random_seed(seed)
    model.compile(optimizer=tf_keras.optimizers.Adam(lr),
                  loss=tf_keras.losses.SparseCategoricalCrossentropy(
                      from_logits=True))
    start = time.perf_counter()
    model.fit(x, y, batch_size=64, epochs=epochs, shuffle=True, verbose=0)
    return time.perf_counter() - start


def top1(logits, y):
    return 100.0 * float(np.mean(np.argmax(logits, axis=1) == y))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--fp32-epochs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    x_train, x_test, y_train, y_test = split(args.seed, channels_last=True)
    tf_keras.utils.set_random_seed(args.seed)
    model = digits_net()
    train(model, x_train, y_train, args.fp32_epochs, 1e-2, args.seed)
    fp32 = top1(model.predict(x_test, verbose=0), y_test)

    table = MarkdownTable("| model | top-1 % | fine-tuning s | ONNX Runtime "
                          "top-1 % | classes as Keras |")
    table.add("FP32", "%.2f" % fp32, "", "", "")
    theirs = tfmot.quantization.keras.quantize_model(model)
    seconds = train(theirs, x_train, y_train, args.epochs, 1e-3, args.seed)
    table.add("TFMOT 0.8.1", "%.2f" % top1(
        theirs.predict(x_test, verbose=0), y_test), "%.1f" % seconds,
        "(no ONNX export)", "")
    ours = qk.quantize_model(model)
    seconds = train(ours, x_train, y_train, args.epochs, 1e-3, args.seed)
    logits = ours.predict(x_test, verbose=0)
    exported = qk.export_qat_model(ours).SerializeToString()
    onnx_logits = ort.outputs(exported, [x_test], optimize=False)[0]
    table.add("quant_qdq.keras", "%.2f" % top1(logits, y_test),
              "%.1f" % seconds, "%.2f" % top1(onnx_logits, y_test),
              "%d / %d" % (int(np.sum(np.argmax(onnx_logits, 1)
                                      == np.argmax(logits, 1))),
                           len(y_test)))


if __name__ == "__main__":
    main()
