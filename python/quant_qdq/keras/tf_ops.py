"""The few tensor functions the Keras quantization layers use, as
TensorFlow's own: for tf.keras layers, which compute with them, and for
TensorFlow tensors under Keras 3. The same names as keras.ops, so that a
layer takes either. TensorFlow is imported on first use.
"""

__all__ = ["TFOps", "tf_ops"]


class TFOps:
    """keras.ops' names over TensorFlow's functions."""

    def __init__(self):
        import tensorflow as tf
        self.tf = tf

    def __getattr__(self, name):  # abs, cast, floor, maximum, where...
        return getattr(self.tf, name)

    def max(self, x, axis=None, keepdims=False):
        return self.tf.reduce_max(x, axis=axis, keepdims=keepdims)

    def min(self, x, axis=None, keepdims=False):
        return self.tf.reduce_min(x, axis=axis, keepdims=keepdims)

    def conv(self, x, kernel, strides, padding, data_format, dilation_rate):
        return self.tf.nn.convolution(x, kernel, strides=strides,
                                      padding=padding.upper(),
                                      dilations=dilation_rate)

    def depthwise_conv(self, x, kernel, strides, padding, data_format,
                       dilation_rate):
        return self.tf.nn.depthwise_conv2d(
            x, kernel, strides=(1, *strides, 1), padding=padding.upper(),
            dilations=dilation_rate)


_INSTANCE = []


def tf_ops() -> TFOps:
    """The one TFOps of the process."""
    if not _INSTANCE:
        _INSTANCE.append(TFOps())
    return _INSTANCE[0]
