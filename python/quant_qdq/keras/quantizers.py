"""TFMOT's quantizers, as `quant_qdq.keras.quantizers`.

    from quant_qdq.keras.quantizers import LastValueQuantizer
    LastValueQuantizer(num_bits=4, per_axis=True)

A Quantizer has TFMOT's interface: `build(tensor_shape, name, layer)`
creates its variables on `layer` (the QuantizeWrapper) and returns them as
a dict; `__call__(inputs, training, weights, **kwargs)` returns the
fake-quantized tensor, `weights` being that dict; `get_config` and
`from_config` serialize it. A user may write their own.

The three built-in ones keep a range [min, max] in two non-trainable
variables (-6 and 6 to start; 0 and 0 for AllValuesQuantizer) and fake-
quantize as TensorFlow's `fake_quant_with_min_max_vars` does: the range is
nudged so that 0.0 is a level, `2^bits` levels (one fewer with
`narrow_range`), values rounded half up onto them, the gradient passed
straight through inside the range and zero outside. In training the range
moves: to the batch's (LastValueQuantizer), towards it by an exponential
moving average of decay 0.999 (MovingAverageQuantizer), or to the widest
seen (AllValuesQuantizer); `symmetric` widens it to [-a, a] (two's
complement's [-a·2^b/(2^b-2), a] without `narrow_range`), `per_axis`
keeps one range per index of the tensor's last axis. At inference the
stored range is used.

Where the API differs from TFMOT 0.8: the constructors' arguments have
defaults (TFMOT's default scheme: LastValueQuantizer is 8-bit per-tensor
symmetric narrow, as weights are quantized; the other two 8-bit
per-tensor asymmetric, as activations are), so the seed guide's
`LastValueQuantizer(num_bits=4, per_axis=True)` runs; and
`qdq_parameters` says how export writes a quantizer as a Q/DQ pair (a
quantizer without one cannot be exported).
"""

import abc

import numpy as np

from .._options import checked_bits
from .tf_ops import tf_ops

__all__ = ["Quantizer", "LastValueQuantizer", "MovingAverageQuantizer",
           "AllValuesQuantizer", "QDQParameters", "keras_of", "tensor_ops"]


def keras_of(layer):
    """The Keras module (keras or tf_keras) `layer` belongs to."""
    if type(layer).__module__.startswith("tf_keras") or any(
            c.__module__.startswith("tf_keras") for c in type(layer).__mro__):
        import tf_keras
        return tf_keras
    import keras
    return keras


def tensor_ops(x):
    """Tensor functions for `x`: TensorFlow's for TensorFlow tensors (tf.keras
    layers, or Keras 3 on TensorFlow), keras.ops otherwise."""
    if type(x).__module__.startswith("tensorflow"):
        return tf_ops()
    import keras
    return keras.ops


def is_training(training) -> bool:
    """Keras passes `training` as a bool (or None, inference)."""
    return bool(training) if training is not None else False


class QDQParameters:
    """A quantizer as ONNX writes it: `bits`-wide storage, signed or not,
    narrow or not, and a scale and zero point per tensor (per_axis False)
    or per index of the tensor's last axis."""

    def __init__(self, bits, signed, narrow_range, scale, zero_point,
                 per_axis, inverse_scale=None):
        self.bits = bits
        self.signed = signed
        self.narrow_range = narrow_range
        self.scale = np.atleast_1d(np.asarray(scale, np.float32))
        self.zero_point = np.atleast_1d(np.asarray(zero_point, np.int64))
        self.per_axis = per_axis
        # TensorFlow rounds with the inverse computed from the range.
        self.inverse_scale = (np.float32(1) / self.scale
                              if inverse_scale is None else np.atleast_1d(
                                  np.asarray(inverse_scale, np.float32)))

    def along(self, length):
        """(scales, zero points, inverse scales) for `length` indices of
        the quantized axis: as they are, or repeated when the axis is
        longer (a depthwise kernel's channels times multiplier, its scales
        being per multiplier, the Keras last axis)."""
        if length % self.scale.size:
            raise ValueError("%d scales do not divide an axis of %d"
                             % (self.scale.size, length))
        repeats = length // self.scale.size
        return (np.tile(self.scale, repeats),
                np.tile(self.zero_point, repeats),
                np.tile(self.inverse_scale, repeats))

    def quantize(self, array, axis=None):
        """The integers `array` (a constant) is stored as: TensorFlow's
        fake quantization (clamp to the nudged range, round half up), so
        that dequantized they are what the model computes with. Per axis,
        the scales run along `axis` of `array` (see `along`)."""
        array = np.asarray(array, np.float32)
        shape = [1] * array.ndim
        scale, zero_point, inverse = (self.scale, self.zero_point,
                                      self.inverse_scale)
        if self.per_axis:
            scale, zero_point, inverse = self.along(array.shape[axis])
            shape[axis] = scale.size
        scale = scale.reshape(shape)
        zero_point = zero_point.reshape(shape)
        inverse = inverse.reshape(shape)
        qmin = 1 if self.narrow_range else 0
        qmax = 2 ** self.bits - 1
        if self.signed:  # unsigned levels, shifted
            zero_point = zero_point + 2 ** (self.bits - 1)
        low = ((qmin - zero_point) * scale).astype(np.float32)
        high = ((qmax - zero_point) * scale).astype(np.float32)
        clamped = np.minimum(np.maximum(array, low), high)
        levels = np.floor((clamped - low) * inverse + np.float32(0.5))
        stored = levels.astype(np.int64) + qmin
        if self.signed:
            stored -= 2 ** (self.bits - 1)
        return stored


class Quantizer(metaclass=abc.ABCMeta):
    """TFMOT's Quantizer interface (see the module's docstring)."""

    @abc.abstractmethod
    def build(self, tensor_shape, name, layer):
        """Creates the quantizer's variables on `layer`; returns them as a
        dict, handed back to __call__ as `weights`."""

    @abc.abstractmethod
    def __call__(self, inputs, training, weights, **kwargs):
        """The fake-quantized `inputs`."""

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def qdq_parameters(self, weights):
        """The Q/DQ pair this quantizer is at inference, from its variables
        `weights` (build's dict); None when it has none (export then
        refuses the model)."""
        return None

    def __eq__(self, other):
        return type(self) is type(other) and \
            self.get_config() == other.get_config()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(type(self))


def nudged_range(low, high, num_bits, narrow_range, ops):
    """(scale, its inverse, nudged min, nudged max, zero point) of the
    range [low, high] on 2^num_bits levels (less the lowest with
    narrow_range), moved so that 0.0 is a level, in the arithmetic of
    TensorFlow's fake_quant kernels (the inverse is computed from the
    range, not from the scale, as they do). Works on tensors (with `ops`)
    and on float32 numpy vectors (ops=np)."""
    qmin = 1.0 if narrow_range else 0.0
    qmax = float(2 ** num_bits - 1)
    width = ops.maximum(high - low, 1e-30)
    scale = width / (qmax - qmin)
    inverse = (qmax - qmin) / width
    from_min = qmin - low / scale
    # std::round, half away from zero (from_min matters only where it is
    # positive): floor plus one from the half, exactly; floor(x + 0.5)
    # would round 0.49999997 up.
    floor = ops.floor(from_min)
    rounded = ops.where(from_min - floor >= 0.5, floor + 1.0, floor)
    zero_point = ops.minimum(ops.maximum(rounded, qmin), qmax)
    return (scale, inverse, (qmin - zero_point) * scale,
            (qmax - zero_point) * scale, zero_point)


def fake_quantize_range(x, low, high, num_bits, narrow_range):
    """`x` fake-quantized on the nudged range [low, high] (per index of the
    last axis when they are vectors): clamp, round half up onto the levels;
    gradient 1 inside the range, 0 outside. TensorFlow tensors go through
    TensorFlow's own fake_quant ops (the same numbers as TFMOT, to the
    bit); others through the same arithmetic in keras.ops."""
    if type(x).__module__.startswith("tensorflow"):
        import tensorflow as tf
        low = tf.cast(low, tf.float32)
        high = tf.cast(high, tf.float32)
        if len(low.shape) == 1:
            return tf.quantization.fake_quant_with_min_max_vars_per_channel(
                x, low, high, num_bits=num_bits, narrow_range=narrow_range)
        return tf.quantization.fake_quant_with_min_max_vars(
            x, low, high, num_bits=num_bits, narrow_range=narrow_range)
    ops = tensor_ops(x)
    low = ops.cast(low, x.dtype)
    high = ops.cast(high, x.dtype)
    scale, inverse, nudged_low, nudged_high, _ = nudged_range(
        low, high, num_bits, narrow_range, ops)
    clamped = ops.minimum(ops.maximum(x, nudged_low), nudged_high)
    levels = ops.floor((clamped - nudged_low) * inverse + 0.5)
    rounded = levels * scale + nudged_low
    return clamped + ops.stop_gradient(rounded - clamped)


class _RangeQuantizer(Quantizer):
    """A quantizer keeping [min, max] in two non-trainable variables; the
    subclasses say how training moves them (`_update`)."""

    _initial_range = (-6.0, 6.0)

    def __init__(self, num_bits=8, per_axis=False, symmetric=True,
                 narrow_range=True):
        self.num_bits = checked_bits(num_bits)
        self.per_axis = bool(per_axis)
        self.symmetric = bool(symmetric)
        self.narrow_range = bool(narrow_range)

    def build(self, tensor_shape, name, layer):
        k = keras_of(layer)
        shape = ()
        if self.per_axis:
            if tensor_shape is None or tensor_shape[-1] is None:
                raise ValueError(
                    "%s(per_axis=True) on '%s' needs a known last dimension"
                    % (type(self).__name__, name))
            shape = (int(tensor_shape[-1]),)
        low, high = self._initial_range
        return {
            "min_var": layer.add_weight(
                name=name + "_min", shape=shape, trainable=False,
                initializer=k.initializers.Constant(low)),
            "max_var": layer.add_weight(
                name=name + "_max", shape=shape, trainable=False,
                initializer=k.initializers.Constant(high)),
        }

    def _batch_range(self, x, ops):
        """The batch's [min, max] (per last-axis index with per_axis),
        widened to hold 0.0 and, when symmetric, to TFMOT's symmetric
        range."""
        x = ops.stop_gradient(x)
        axes = tuple(range(len(x.shape) - 1)) if self.per_axis else None
        low, high = ops.min(x, axis=axes), ops.max(x, axis=axes)
        if self.symmetric:
            # In two's complement the negative side holds one more level.
            ratio = -1.0 if self.narrow_range else \
                -float(2 ** self.num_bits - 2) / float(2 ** self.num_bits)
            return (ops.minimum(low, high / ratio),
                    ops.maximum(high, low * ratio))
        return ops.minimum(low, 0.0), ops.maximum(high, 0.0)

    def _update(self, variable, batch_value, ops, widen):
        """The variable's new value given the batch's (subclasses)."""
        raise NotImplementedError

    def __call__(self, inputs, training, weights, **kwargs):
        low_var, high_var = weights["min_var"], weights["max_var"]
        low, high = low_var, high_var
        if is_training(training):
            ops = tensor_ops(inputs)
            batch_low, batch_high = self._batch_range(inputs, ops)
            low = self._update(low_var, batch_low, ops, ops.minimum)
            high = self._update(high_var, batch_high, ops, ops.maximum)
            low_var.assign(low)
            high_var.assign(high)
        return fake_quantize_range(inputs, low, high, self.num_bits,
                                   self.narrow_range)

    def qdq_parameters(self, weights):
        # Vectors, so that numpy computes in float32, as TensorFlow does
        # (it would widen 0-d arrays with the Python floats to float64).
        low = np.atleast_1d(np.asarray(_numpy(weights["min_var"]),
                                       np.float32))
        high = np.atleast_1d(np.asarray(_numpy(weights["max_var"]),
                                        np.float32))
        scale, inverse, _, _, zero_point = nudged_range(
            low, high, self.num_bits, self.narrow_range, np)
        # Symmetric ranges are signed storage (zero point 0 when the range
        # is TFMOT's symmetric one), the others unsigned.
        signed = self.symmetric
        if signed:
            zero_point = zero_point - 2 ** (self.num_bits - 1)
        return QDQParameters(self.num_bits, signed, self.narrow_range,
                             scale.astype(np.float32),
                             np.rint(zero_point).astype(np.int64),
                             self.per_axis, inverse.astype(np.float32))

    def get_config(self):
        return {"num_bits": self.num_bits, "per_axis": self.per_axis,
                "symmetric": self.symmetric,
                "narrow_range": self.narrow_range}


def _numpy(variable):
    value = variable.numpy() if hasattr(variable, "numpy") else variable
    return np.asarray(value)


class LastValueQuantizer(_RangeQuantizer):
    """In training, the range is the batch's. Defaults: 8-bit, per tensor,
    symmetric, narrow range (TFMOT's weights)."""

    def _update(self, variable, batch_value, ops, widen):
        return batch_value


class MovingAverageQuantizer(_RangeQuantizer):
    """In training, the range moves towards the batch's by an exponential
    moving average (decay 0.999, no debiasing). Defaults: 8-bit, per
    tensor, asymmetric, full range (TFMOT's activations)."""

    ema_decay = 0.999

    def __init__(self, num_bits=8, per_axis=False, symmetric=False,
                 narrow_range=False):
        super().__init__(num_bits, per_axis, symmetric, narrow_range)

    def _update(self, variable, batch_value, ops, widen):
        return variable * self.ema_decay + batch_value * (1.0 - self.ema_decay)


class AllValuesQuantizer(_RangeQuantizer):
    """In training, the range widens to hold every value seen (it starts
    at [0, 0]). Defaults: 8-bit, per tensor, asymmetric, full range."""

    _initial_range = (0.0, 0.0)

    def __init__(self, num_bits=8, per_axis=False, symmetric=False,
                 narrow_range=False):
        super().__init__(num_bits, per_axis, symmetric, narrow_range)

    def _update(self, variable, batch_value, ops, widen):
        return widen(variable, batch_value)
