"""Writes the Keras models of the Keras import tests.

    make_keras_model.py FOLDER

FOLDER/block.keras and block.h5 (Keras 3), block_savedmodel/ (tf.keras),
block_export/ (Keras 3's model.export: a TensorFlow graph, no Keras model):
a conv-BN-ReLU6 stem, a residual block and a classifier; prelu.keras, with
a layer the importer does not know (PReLU); lambda.keras, with a Lambda
layer holding Python code; x.npy, an input batch, and ref.npy, the model's
output on it (the same weights in all four block files).
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np


def block(layers, Model):
    x = layers.Input((16, 16, 3), name="image")
    y = layers.Conv2D(8, 3, strides=2, padding="same", name="stem")(x)
    y = layers.BatchNormalization(name="stem_bn")(y)
    y = layers.ReLU(max_value=6.0, name="stem_relu")(y)
    z = layers.Conv2D(8, 3, padding="same", name="conv1")(y)
    z = layers.BatchNormalization(name="bn1")(z)
    z = layers.Activation("relu", name="relu1")(z)
    z = layers.Conv2D(8, 3, padding="same", name="conv2")(z)
    z = layers.BatchNormalization(name="bn2")(z)
    y = layers.Add(name="add")([y, z])
    y = layers.GlobalAveragePooling2D(name="gap")(y)
    y = layers.Dense(10, name="fc")(y)
    return Model(x, y, name="block")


def randomize(model, seed):
    rs = np.random.RandomState(seed)
    model.set_weights([rs.uniform(0.5, 1.5, w.shape).astype("f")
                       if w.ndim == 1 else
                       rs.randn(*w.shape).astype("f") * 0.3
                       for w in model.get_weights()])


def main(folder):
    import keras
    import tf_keras
    os.makedirs(folder, exist_ok=True)
    model = block(keras.layers, keras.Model)
    randomize(model, 0)
    model.save(os.path.join(folder, "block.keras"))
    model.save(os.path.join(folder, "block.h5"))
    legacy = block(tf_keras.layers, tf_keras.Model)
    legacy.set_weights(model.get_weights())
    legacy.save(os.path.join(folder, "block_savedmodel"), save_format="tf")
    model.export(os.path.join(folder, "block_export"), verbose=False)
    x = np.random.RandomState(1).randn(2, 16, 16, 3).astype("f")
    np.save(os.path.join(folder, "x.npy"), x)
    np.save(os.path.join(folder, "ref.npy"), np.asarray(model(x)))

    inputs = keras.Input((8, 8, 3), name="x")
    y = keras.layers.Conv2D(4, 3, name="conv")(inputs)
    y = keras.layers.Lambda(lambda t: t * 2.0, name="double")(y)
    keras.Model(inputs, y).save(os.path.join(folder, "lambda.keras"))
    y = keras.layers.Conv2D(4, 3, name="conv")(inputs)
    y = keras.layers.PReLU(name="prelu")(y)
    y = keras.layers.Conv2D(4, 3, name="conv2")(y)
    keras.Model(inputs, y).save(os.path.join(folder, "prelu.keras"))


if __name__ == "__main__":
    main(sys.argv[1])
