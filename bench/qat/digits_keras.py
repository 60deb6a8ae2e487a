#!/usr/bin/env python3
"""Quantization-aware training recovers what post-training quantization
loses: the digits CNN in Keras, weights at 4 bits, activations at 8.

Trains DigitsNet's Keras twin (conv-BN-ReLU stem, two residual blocks, max
pooling, a conv head and a classifier) in float on 70% of scikit-learn's
handwritten digits, then measures top-1 on the 540 held-out digits:

  FP32          the trained Keras model;
  PTQ           quantize_model(qat=True) at the ResNet-v1 placement, ranges
                from one pass over the training images, no training;
  QAT           the same model after a few epochs of model.fit;
  QAT, ONNX     the trained model exported with export_qat_model (4-bit
                weights as opset-21 INT4 initializers) and run by ONNX
                Runtime, which must agree with Keras.

usage: bench/qat/digits_keras.py [--epochs N] [--weight-bits B]
                                 [--fp32-epochs N] [--check-recorded]

With --check-recorded, the four top-1 figures must agree with the row of
RESULTS.md's "What the benchmark test checks" for the same bits and epochs
(within TOLERANCE points, below).
"""

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import reproducible  # noqa: E402  (before TensorFlow)

import keras  # noqa: E402
import numpy as np  # noqa: E402

import quant_qdq as qq  # noqa: E402
from quant_qdq.keras.qat import export_qat_model  # noqa: E402

from common import digits_qat  # noqa: E402

# Five of the 540 digits: a margin for TensorFlow, whose kernels an update
# may change more freely than PyTorch's (runs here gave the same figures).
TOLERANCE = 1.0


def conv_bn_relu(x, filters, name, relu=True):
    x = keras.layers.Conv2D(filters, 3, padding="same", use_bias=False,
                            name=name + "_conv")(x)
    x = keras.layers.BatchNormalization(name=name + "_bn")(x)
    return keras.layers.ReLU(name=name + "_relu")(x) if relu else x


def block(x, name):
    y = conv_bn_relu(x, 16, name + "_1")
    y = conv_bn_relu(y, 16, name + "_2", relu=False)
    return keras.layers.ReLU(name=name + "_out")(
        keras.layers.Add(name=name + "_add")([x, y]))


def digits_net():
    inputs = keras.Input((8, 8, 1), name="image")
    x = conv_bn_relu(inputs, 16, "stem")
    x = keras.layers.MaxPooling2D(name="pool")(block(x, "block1"))
    x = conv_bn_relu(block(x, "block2"), 32, "head")
    x = keras.layers.GlobalAveragePooling2D(name="gap")(x)
    return keras.Model(inputs, keras.layers.Dense(10, name="fc")(x),
                       name="digits_net")


def top1(model, x, y):
    logits = model.predict(x, batch_size=256, verbose=0)
    return 100.0 * float(np.mean(np.argmax(logits, axis=1) == y))


def train(model, x, y, epochs, lr):
    model.compile(optimizer=keras.optimizers.Adam(lr),
                  loss=keras.losses.SparseCategoricalCrossentropy(
                      from_logits=True))
    model.fit(x, y, batch_size=64, epochs=epochs, shuffle=True, verbose=0)


def main():
    args = digits_qat.arguments()
    reproducible.deterministic_tensorflow()
    keras.utils.set_random_seed(args.seed)
    x_train, x_test, y_train, y_test = digits_qat.split(
        args.seed, channels_last=True)

    start = time.time()
    model = digits_net()
    train(model, x_train, y_train, epochs=args.fp32_epochs, lr=3e-3)
    fp32 = top1(model, x_test, y_test)
    print(f"FP32 trained in {time.time() - start:.1f} s: top-1 {fp32:.2f}% "
          f"on {len(y_test)} held-out digits")

    qat = qq.quantize_model(model, custom_qdq_cases=[qq.ResNetV1QDQCase()],
                            qat=True, weight_bits=args.weight_bits,
                            activation_bits=8,
                            calibration_data=x_train[:256])
    ptq = top1(qat, x_test, y_test)
    start = time.time()
    train(qat, x_train, y_train, epochs=args.epochs, lr=1e-3)
    trained = top1(qat, x_test, y_test)
    digits_qat.report(args.weight_bits, fp32, ptq, trained, args.epochs,
                      time.time() - start)
    exported = digits_qat.report_export(
        args.weight_bits, export_qat_model(qat), x_test, y_test,
        qat.predict(x_test, verbose=0), "Keras")
    digits_qat.check_run(args, "Keras", TOLERANCE, FP32=fp32, PTQ=ptq,
                         QAT=trained, exported=exported)


if __name__ == "__main__":
    sys.exit(main())
