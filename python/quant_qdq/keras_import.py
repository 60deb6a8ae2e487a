"""Keras models in: a keras.Model as quant_qdq layer ops.

    from quant_qdq.keras_import import import_keras
    module = import_keras(keras.applications.ResNet50(weights=None))

The translation walks the model's layer graph (Functional and Sequential
models of Keras 3 or tf.keras; nested models are flattened) and emits one
layer op per Keras layer under the layer's own name, with the Keras class
where it differs from the op's (`quant_qdq.layer_class`), so that a
QuantizationSpec written for NVIDIA's toolkit applies unchanged.

Images run channel-first, as ONNX and TensorRT want them: kernels are
transposed once at import and 4-D tensors stay NCHW between the layers that
do not care, with a transpose only where the Keras layout is needed (model
inputs and outputs, Flatten, Reshape, Dense, unknown layers). A layer the
translation does not know stays in float as a `quant_qdq.generic` op of its
class, with a warning.
"""

import errno
import os
import warnings
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

from . import _quant_qdq
from ._quant_qdq import Module, QuantQDQError, QuantQDQWarning

__all__ = ["import_keras", "load_keras_model", "is_keras_model",
           "KerasImportError"]

# Keras's image layout to ONNX's, and back.
_NCHW = (0, 3, 1, 2)
_NHWC = (0, 2, 3, 1)


def _keras_modules():
    """The Keras implementations loaded in this process: Keras 3 and tf.keras
    (tf_keras). Neither is imported here unless the user did."""
    import sys
    return [sys.modules[name] for name in ("keras", "tf_keras")
            if name in sys.modules]


def is_keras_model(model) -> bool:
    """Whether `model` is a keras.Model of Keras 3 or tf.keras."""
    return any(isinstance(model, k.Model) for k in _keras_modules())


def load_keras_model(path):
    """Loads a .keras or .h5 file or a SavedModel folder with the Keras that
    wrote it: Keras 3 for .keras, tf.keras for SavedModels, Keras 3 and
    then tf.keras for .h5."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    loaders = []
    if os.path.isdir(path):
        loaders = ["tf_keras"]
    elif path.endswith(".keras"):
        loaders = ["keras"]
    elif path.endswith((".h5", ".hdf5")):
        loaders = ["keras", "tf_keras"]
    else:
        raise ValueError("%s: not a Keras model (.keras, .h5 or a SavedModel "
                         "folder)" % path)
    errors = []
    for name in loaders:
        try:
            module = __import__(name)
            # Models saved after quantization-aware training hold
            # keras_qat's layers: registered with this Keras first.
            from .keras_qat import layers_of
            layers_of(name)
            return module.models.load_model(path, compile=False)
        except ImportError as e:
            errors.append("%s: %s" % (name, e))
        except Exception as e:  # Keras raises many kinds on a bad file.
            errors.append("%s: %s: %s" % (name, type(e).__name__, e))
    raise ValueError("%s: cannot load the Keras model:\n  %s"
                     % (path, "\n  ".join(errors)))


def _mlir_string(text: str) -> str:
    """`text` as an MLIR string literal."""
    out = []
    for byte in text.encode():
        c = chr(byte)
        if c in '"\\' or not (32 <= byte < 127):
            out.append("\\%02X" % byte)
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _f32(value: float) -> str:
    return "%.9e : f32" % float(np.float32(value))


def _i64s(values) -> str:
    return "array<i64: %s>" % ", ".join(str(int(v)) for v in values)


def _tensor_type(shape) -> str:
    dims = "".join(("?" if d is None else str(int(d))) + "x" for d in shape)
    return "tensor<%sf32>" % dims


def _attr_dict(entries, layer_class: Optional[str] = None) -> str:
    """` {a = 1, ...}` of the non-empty `entries`, with the Keras class when
    it differs from the op's; empty when there is nothing to say."""
    entries = [e for e in entries if e]
    if layer_class:
        entries.append("quant_qdq.layer_class = %s" % _mlir_string(layer_class))
    return " {%s}" % ", ".join(entries) if entries else ""


def _pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * 2


def _f32_array(value) -> np.ndarray:
    """`value` as a C-contiguous float32 array of its own rank (0-D
    included, which np.ascontiguousarray would make 1-D)."""
    return np.require(np.asarray(value, dtype=np.float32), requirements="C")


def _to_numpy(variable) -> np.ndarray:
    return _f32_array(variable.numpy() if hasattr(variable, "numpy")
                      else variable)


class _Value:
    """A tensor of the model: its SSA name, its shape in the Keras layout,
    and whether it is held channel-first (4-D tensors only)."""

    def __init__(self, ssa: str, shape, nchw: bool = False,
                 origin: str = ""):
        self.ssa = ssa
        self.origin = origin
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.nchw = nchw
        self.other_layout: Optional["_Value"] = None

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def held_shape(self):
        """The shape of the MLIR value."""
        if self.nchw:
            return tuple(self.shape[i] for i in _NCHW)
        return self.shape

    @property
    def type(self) -> str:
        return _tensor_type(self.held_shape)

    def axis(self, keras_axis: int) -> int:
        """The MLIR axis of a Keras axis of this tensor."""
        keras_axis %= self.rank
        return _NCHW.index(keras_axis) if self.nchw else keras_axis


class KerasImportError(QuantQDQError, ValueError):
    """A Keras model the translation cannot represent."""


# Keras class name -> the _Translator method that translates it.
_TRANSLATIONS: Dict[str, Callable] = {}


def _translates(*class_names):
    def register(method):
        for name in class_names:
            _TRANSLATIONS[name] = method
        return method
    return register


class _Translator:
    def __init__(self, source: str, batch_size: Optional[int],
                 keras_version: str):
        self.source = source
        self.batch_size = batch_size
        self.legacy = keras_version == "tf_keras"
        self.lines: List[str] = []
        self.resources: Dict[str, np.ndarray] = {}
        self.next_value = 0
        self.names: Dict[str, int] = {}
        self.unknown: Dict[str, List[str]] = {}
        # (bits, narrow range) of the kernel of the layer being translated,
        # when it was trained with it fake-quantized.
        self.weight_quantizer = None

    # -- emission ----------------------------------------------------------

    def fresh(self) -> str:
        self.next_value += 1
        return "%%v%d" % self.next_value

    def loc(self, name: str) -> str:
        return "loc(%s(%s:0:0))" % (_mlir_string(name),
                                    _mlir_string(self.source))

    def unique_name(self, name: str) -> str:
        """Layer names are unique in a Keras model, but not across nested
        models used twice."""
        count = self.names.get(name, 0)
        self.names[name] = count + 1
        return name if count == 0 else "%s_%d" % (name, count)

    def constant(self, array: np.ndarray, hint: str) -> str:
        key = "".join(c if c.isalnum() or c == "_" else "_" for c in hint)
        key = "w_" + key
        while key in self.resources:
            key += "_"
        array = _f32_array(array)
        self.resources[key] = array
        ssa = self.fresh()
        self.lines.append("%s = arith.constant dense_resource<%s> : %s %s"
                          % (ssa, key, _tensor_type(array.shape),
                             self.loc(hint)))
        return ssa

    def emit(self, op: str, name: str, operands: Sequence[str],
             operand_types: Sequence[str], result: _Value, attrs: str = "",
             layer_class: Optional[str] = None) -> _Value:
        """Appends `%r = op "name" operands {attrs} : (types) -> type`."""
        self.lines.append("%s = %s %s %s%s : (%s) -> %s %s" % (
            result.ssa, op, _mlir_string(name), ", ".join(operands),
            _attr_dict([attrs], layer_class), ", ".join(operand_types),
            result.type, self.loc(name)))
        return result

    def emit_activation(self, kind: str, name: str, x: _Value, attrs: dict,
                        layer_class: Optional[str] = None) -> _Value:
        """Appends `%r = quant_qdq.activation kind "name" %x {attrs}`."""
        result = self.new_value(x.shape, x.nchw)
        entries = ["%s = %s" % (k, _f32(v)) for k, v in attrs.items()]
        self.lines.append("%s = quant_qdq.activation %s %s %s%s : %s %s" % (
            result.ssa, kind, _mlir_string(name), x.ssa,
            _attr_dict(entries, layer_class), x.type, self.loc(name)))
        return result

    def emit_generic(self, op_type: str, name: str, operands: List[_Value],
                     results: List[_Value], layer_class: Optional[str] = None,
                     domain: Optional[str] = None) -> List[_Value]:
        """Appends `%r... = quant_qdq.generic "op_type" "name" operands`."""
        entries = ["domain = %s" % _mlir_string(domain) if domain else ""]
        self.lines.append(
            "%s = quant_qdq.generic %s %s %s%s : (%s) -> (%s) %s" % (
                ", ".join(r.ssa for r in results), _mlir_string(op_type),
                _mlir_string(name), ", ".join(v.ssa for v in operands),
                _attr_dict(entries, layer_class),
                ", ".join(v.type for v in operands),
                ", ".join(r.type for r in results), self.loc(name)))
        return results

    def new_value(self, shape, nchw: bool) -> _Value:
        return _Value(self.fresh(), shape, nchw and len(shape) == 4)

    # -- layouts -----------------------------------------------------------

    def relayout(self, value: _Value, nchw: bool) -> _Value:
        """`value` held channel-first (nchw) or in the Keras layout; one
        transpose, made once per value."""
        if value.rank != 4 or value.nchw == nchw:
            return value
        if value.other_layout is None:
            result = _Value(self.fresh(), value.shape, nchw, value.origin)
            name = "%s/to_%s" % (value.origin, "nchw" if nchw else "nhwc")
            if value.shape[1] == 1 and value.shape[2] == 1:
                # 1x1 images (squeeze-and-excitation) are laid out alike
                # either way: a reshape, not a data movement.
                dims = [-1 if d is None else d for d in result.held_shape]
                op, attr = "reshape", "shape = %s" % _i64s(dims)
            else:
                op, attr = "transpose", "perm = %s" % _i64s(
                    _NCHW if nchw else _NHWC)
            self.emit("quant_qdq." + op, name, [value.ssa], [value.type],
                      result, attr)
            result.other_layout = value
            value.other_layout = result
        return value.other_layout

    def keras_layout(self, value: _Value) -> _Value:
        return self.relayout(value, False)

    def channel_first(self, value: _Value) -> _Value:
        return self.relayout(value, True)

    # -- shapes ------------------------------------------------------------

    def shape_of(self, keras_tensor):
        shape = list(keras_tensor.shape)
        if shape and shape[0] is None and self.batch_size is not None:
            shape[0] = self.batch_size
        return tuple(shape)

    # -- layers ------------------------------------------------------------

    def activation(self, name: str, kind, value: _Value,
                   layer_class: Optional[str] = None) -> _Value:
        """Keras activation `kind` (a name) applied to `value`."""
        if kind in (None, "linear"):
            return value
        if kind == "softmax":
            return self.emit("quant_qdq.softmax", name, [value.ssa],
                             [value.type],
                             self.new_value(value.shape, value.nchw),
                             "axis = %d : i64" % value.axis(-1), layer_class)
        attrs = {}
        if kind in ("swish", "silu"):
            kind = "swish"
        elif kind in ("hard_swish", "hard_silu"):
            kind = "hard_swish"
        elif kind == "hard_sigmoid":
            # tf.keras: 0.2 x + 0.5; Keras 3: relu6(x + 3) / 6.
            attrs = {"alpha": 0.2 if self.legacy else 1.0 / 6.0, "beta": 0.5}
        elif kind == "elu":
            attrs = {"alpha": 1.0}
        elif kind == "leaky_relu":
            attrs = {"alpha": 0.2}
        elif kind not in ("relu", "relu6", "sigmoid", "tanh", "gelu",
                          "softplus"):
            return None
        return self.emit_activation(kind, name, value, attrs, layer_class)

    def fused_activation(self, layer, config, value: _Value) -> _Value:
        kind = config.get("activation")
        if not isinstance(kind, str):
            kind = getattr(getattr(layer, "activation", None), "__name__",
                           None)
        out = self.activation("%s/%s" % (layer.name, kind), kind, value)
        if out is None:
            raise KerasImportError(
                "layer '%s' (%s): activation %r has no quant_qdq equivalent"
                % (layer.name, _class_of(layer), kind))
        return out

    def same_pads(self, value: _Value, kernel, strides, dilations, name):
        pads = []
        for axis in (1, 2):
            size = value.shape[axis]
            k = (kernel[axis - 1] - 1) * dilations[axis - 1] + 1
            s = strides[axis - 1]
            if size is None:
                if s != 1:
                    raise KerasImportError(
                        "layer '%s': 'same' padding with stride %d needs a "
                        "static input size" % (name, s))
                total = k - 1
            else:
                total = max((-(-size // s) - 1) * s + k - size, 0)
            pads.append((total // 2, total - total // 2))
        return [pads[0][0], pads[1][0], pads[0][1], pads[1][1]]

    def pads_of(self, config, value, kernel, strides, dilations, name):
        padding = config.get("padding", "valid")
        if padding == "valid":
            return [0, 0, 0, 0]
        if padding == "same":
            return self.same_pads(value, kernel, strides, dilations, name)
        raise KerasImportError("layer '%s': padding %r is not supported"
                               % (name, padding))

    def check_channels_last(self, layer, config):
        fmt = config.get("data_format") or "channels_last"
        if fmt != "channels_last":
            raise KerasImportError(
                "layer '%s' (%s): data_format %r; only channels_last is "
                "supported" % (layer.name, _class_of(layer), fmt))

    def conv(self, layer, config, inputs, out_shape, depthwise=False):
        self.check_channels_last(layer, config)
        x = self.channel_first(inputs[0])
        kernel = _to_numpy(layer.kernel if hasattr(layer, "kernel")
                           else layer.depthwise_kernel)
        kh, kw = kernel.shape[:2]
        if depthwise:
            channels, multiplier = kernel.shape[2], kernel.shape[3]
            weight = kernel.transpose(2, 3, 0, 1).reshape(
                channels * multiplier, 1, kh, kw)
            groups = channels
        else:
            weight = kernel.transpose(3, 2, 0, 1)
            groups = int(config.get("groups", 1) or 1)
        strides = _pair(config.get("strides", 1))
        dilations = _pair(config.get("dilation_rate", 1))
        pads = self.pads_of(config, inputs[0], (kh, kw), strides, dilations,
                            layer.name)
        operands = [x.ssa, self.weight(weight, layer.name + "_kernel", 0)]
        types = [x.type, _tensor_type(weight.shape)]
        if config.get("use_bias", True) and getattr(layer, "bias", None) \
                is not None:
            bias = _to_numpy(layer.bias)
            operands.append(self.constant(bias, layer.name + "_bias"))
            types.append(_tensor_type(bias.shape))
        attrs = ["strides = %s" % _i64s(strides),
                 "pads = %s" % _i64s(pads),
                 "dilations = %s" % _i64s(dilations)]
        if groups != 1:
            attrs.append("groups = %d : i64" % groups)
        # A Keras Conv2D with as many groups as channels is not a
        # DepthwiseConv2D for the toolkits.
        own = "Conv2D" if not depthwise and groups > 1 else None
        result = self.emit("quant_qdq.conv2d", layer.name, operands, types,
                           self.new_value(out_shape, True), ", ".join(attrs),
                           own)
        return self.fused_activation(layer, config, result)

    def dense(self, layer, config, inputs, out_shape):
        x = self.keras_layout(inputs[0])
        kernel = _to_numpy(layer.kernel)
        operands = [x.ssa, self.weight(kernel, layer.name + "_kernel", 1)]
        types = [x.type, _tensor_type(kernel.shape)]
        if config.get("use_bias", True) and layer.bias is not None:
            bias = _to_numpy(layer.bias)
            operands.append(self.constant(bias, layer.name + "_bias"))
            types.append(_tensor_type(bias.shape))
        result = self.emit("quant_qdq.dense", layer.name, operands, types,
                           self.new_value(out_shape, False))
        return self.fused_activation(layer, config, result)

    def batch_norm(self, layer, config, inputs, out_shape):
        axes = config.get("axis", -1)
        axes = axes if isinstance(axes, (list, tuple)) else [axes]
        x = inputs[0]
        if len(axes) != 1 or axes[0] % x.rank != x.rank - 1:
            return None
        channels = x.shape[-1]
        ones = np.ones(channels, np.float32)
        gamma = _to_numpy(layer.gamma) if config.get("scale", True) else ones
        beta = (_to_numpy(layer.beta) if config.get("center", True)
                else np.zeros(channels, np.float32))
        params = [gamma, beta, _to_numpy(layer.moving_mean),
                  _to_numpy(layer.moving_variance)]
        return self.per_channel_affine(layer.name, x, out_shape, params,
                                       config.get("epsilon", 1e-3), None)

    def per_channel_affine(self, name, x, out_shape, params, epsilon,
                           layer_class):
        """A batch_norm of `params` (scale, bias, mean, variance) along the
        last Keras axis."""
        if x.rank == 4:
            x = self.channel_first(x)
        operands, types = [x.ssa], [x.type]
        for what, array in zip(("gamma", "beta", "mean", "variance"),
                               params):
            operands.append(self.constant(array, "%s_%s" % (name, what)))
            types.append(_tensor_type(array.shape))
        attrs = ["epsilon = %s" % _f32(epsilon)]
        if x.rank != 4 and x.rank != 2:
            attrs.append("layout = #quant_qdq<layout nhwc>")
        return self.emit("quant_qdq.batch_norm", name, operands, types,
                         self.new_value(out_shape, x.rank == 4),
                         ", ".join(attrs), layer_class)

    def pool(self, layer, config, inputs, out_shape, op):
        self.check_channels_last(layer, config)
        x = self.channel_first(inputs[0])
        kernel = _pair(config["pool_size"])
        strides = _pair(config.get("strides") or kernel)
        pads = self.pads_of(config, inputs[0], kernel, strides, (1, 1),
                            layer.name)
        attrs = ("kernel_shape = %s, strides = %s, pads = %s"
                 % (_i64s(kernel), _i64s(strides), _i64s(pads)))
        return self.emit(op, layer.name, [x.ssa], [x.type],
                         self.new_value(out_shape, True), attrs)

    def global_pool(self, layer, config, inputs, out_shape, op):
        self.check_channels_last(layer, config)
        x = self.channel_first(inputs[0])
        keep = bool(config.get("keepdims", False))
        attrs = "" if keep else "keep_dims = false"
        return self.emit(op, layer.name, [x.ssa], [x.type],
                         self.new_value(out_shape, keep), attrs)

    def common_layout(self, inputs: List[_Value]) -> List[_Value]:
        """`inputs` in one layout: channel-first when every input is 4-D
        and one already is, the Keras layout otherwise (broadcasting
        follows Keras's axes)."""
        nchw = (all(v.rank == 4 for v in inputs)
                and any(v.nchw for v in inputs))
        return [self.relayout(v, nchw) for v in inputs]

    def elementwise(self, layer, inputs, out_shape, op):
        inputs = self.common_layout(inputs)
        return self.emit(op, layer.name, [v.ssa for v in inputs],
                         [v.type for v in inputs],
                         self.new_value(out_shape, inputs[0].nchw))

    def unknown_layer(self, cls: str, name: str, inputs,
                      out_shapes) -> List[_Value]:
        """A layer with no equivalent, kept as a generic op of its class in
        domain `keras`, on tensors in the Keras layout."""
        return self.emit_generic(
            cls, name,
            [self.keras_layout(v) for v in inputs],
            [self.new_value(s, False) for s in out_shapes], domain="keras")

    def with_constant(self, name, x, array, op_type, layer_class, out_shape):
        """`x op_type array`, the array broadcast along the last Keras axis
        (a scalar or one value per channel), as a generic ONNX node."""
        array = np.asarray(array, np.float32)
        if array.size > 1 and x.rank == 4 and x.nchw:
            array = array.reshape(1, -1, 1, 1)
        const = _Value(self.constant(array, name + "_" + op_type.lower()),
                       array.shape)
        return self.emit_generic(op_type, name, [x, const],
                                 [self.new_value(out_shape, x.nchw)],
                                 layer_class)[0]

    def visit(self, layer, node, inputs: List[_Value]) -> List[_Value]:
        """The values of one layer call (walk_graph's visitor)."""
        out_shapes = [self.shape_of(o) for o in _node_outputs(node)]
        self.weight_quantizer = None
        if _is_own(layer, "QuantizeWeights"):
            # A layer trained with its kernel fake-quantized: the layer,
            # and a per-channel Q/DQ on its kernel.
            self.weight_quantizer = (layer.num_bits, layer.narrow_range)
            layer = layer.layer
        cls = type(layer).__name__
        config = layer.get_config() if hasattr(layer, "get_config") else {}
        name = self.unique_name(layer.name)
        if name != layer.name:
            layer = _Renamed(layer, name)
        try:
            results = self.translate(layer, config, inputs, out_shapes)
        except KerasImportError:
            raise
        except (KeyError, AttributeError, TypeError, IndexError,
                ValueError) as error:
            # A configuration this translation did not foresee: say which
            # layer, rather than where in the translator.
            raise KerasImportError(
                "layer '%s' (%s): cannot translate its configuration: "
                "%s: %s" % (name, cls, type(error).__name__, error)) \
                from error
        if results is None:
            self.unknown.setdefault(cls, []).append(name)
            results = self.unknown_layer(cls, name, inputs, out_shapes)
        for value in results:
            value.origin = value.origin or name
        return results

    def translate(self, layer, config, inputs: List[_Value],
                  out_shapes) -> Optional[List[_Value]]:
        """The values `layer` computes from `inputs`, or None when no op
        models it."""
        if _is_own(layer, "FakeQuantize"):
            return [self.fake_quantize(layer, inputs[0])]
        handler = _TRANSLATIONS.get(_class_of(layer))
        if handler is None:
            return None
        out = out_shapes[0] if out_shapes else None
        result = handler(self, layer, config, inputs, out)
        if result is None or isinstance(result, list):
            return result
        return [result]

    # One method per Keras layer family, registered by the classes it
    # translates; each returns the result value(s), or None when the
    # layer's configuration has no equivalent (it then stays generic).

    @_translates("Conv2D", "Convolution2D")
    def _conv2d(self, layer, config, inputs, out):
        return self.conv(layer, config, inputs, out)

    @_translates("DepthwiseConv2D")
    def _depthwise_conv2d(self, layer, config, inputs, out):
        return self.conv(layer, config, inputs, out, depthwise=True)

    @_translates("Dense")
    def _dense(self, layer, config, inputs, out):
        return self.dense(layer, config, inputs, out)

    @_translates("BatchNormalization")
    def _batch_norm(self, layer, config, inputs, out):
        return self.batch_norm(layer, config, inputs, out)

    @_translates("Activation")
    def _activation(self, layer, config, inputs, out):
        return self.activation(layer.name, config.get("activation"),
                               inputs[0])

    @_translates("ReLU")
    def _relu(self, layer, config, inputs, out):
        return self.relu(layer, config, inputs[0])

    @_translates("LeakyReLU")
    def _leaky_relu(self, layer, config, inputs, out):
        alpha = config.get("negative_slope", config.get("alpha", 0.3))
        return self.custom_activation(layer, inputs[0], "leaky_relu",
                                      {"alpha": alpha})

    @_translates("ELU")
    def _elu(self, layer, config, inputs, out):
        return self.custom_activation(layer, inputs[0], "elu",
                                      {"alpha": config.get("alpha", 1.0)})

    @_translates("Softmax")
    def _softmax(self, layer, config, inputs, out):
        axis = config.get("axis", -1)
        if isinstance(axis, (list, tuple)):
            if len(axis) != 1:
                return None
            axis = axis[0]
        x = inputs[0]
        return self.emit("quant_qdq.softmax", layer.name, [x.ssa], [x.type],
                         self.new_value(out, x.nchw),
                         "axis = %d : i64" % x.axis(axis))

    @_translates("MaxPooling2D", "MaxPool2D")
    def _max_pool(self, layer, config, inputs, out):
        return self.pool(layer, config, inputs, out, "quant_qdq.max_pool2d")

    @_translates("AveragePooling2D", "AvgPool2D")
    def _avg_pool(self, layer, config, inputs, out):
        return self.pool(layer, config, inputs, out, "quant_qdq.avg_pool2d")

    @_translates("GlobalAveragePooling2D", "GlobalAvgPool2D")
    def _global_avg_pool(self, layer, config, inputs, out):
        return self.global_pool(layer, config, inputs, out,
                                "quant_qdq.global_avg_pool2d")

    @_translates("GlobalMaxPooling2D", "GlobalMaxPool2D")
    def _global_max_pool(self, layer, config, inputs, out):
        return self.global_pool(layer, config, inputs, out,
                                "quant_qdq.global_max_pool2d")

    @_translates("ZeroPadding2D")
    def _zero_padding(self, layer, config, inputs, out):
        self.check_channels_last(layer, config)
        (top, bottom), (left, right) = [_pair(p)
                                        for p in _pair(config["padding"])]
        x = self.channel_first(inputs[0])
        return self.emit("quant_qdq.pad", layer.name, [x.ssa], [x.type],
                         self.new_value(out, True), "pads = %s" % _i64s(
                             [0, 0, top, left, 0, 0, bottom, right]))

    @_translates("Add", "Multiply")
    def _add_multiply(self, layer, config, inputs, out):
        return self.elementwise(layer, inputs, out,
                                "quant_qdq." + _class_of(layer).lower())

    @_translates("Subtract", "Maximum", "Minimum", "Average")
    def _binary_generic(self, layer, config, inputs, out):
        cls = _class_of(layer)
        op_type = {"Subtract": "Sub", "Maximum": "Max", "Minimum": "Min",
                   "Average": "Mean"}[cls]
        inputs = self.common_layout(inputs)
        return self.emit_generic(op_type, layer.name, inputs,
                                 [self.new_value(out, inputs[0].nchw)],
                                 cls)

    @_translates("Concatenate")
    def _concatenate(self, layer, config, inputs, out):
        inputs = self.common_layout(inputs)
        axis = inputs[0].axis(config.get("axis", -1))
        return self.emit("quant_qdq.concat", layer.name,
                         [v.ssa for v in inputs], [v.type for v in inputs],
                         self.new_value(out, inputs[0].nchw),
                         "axis = %d : i64" % axis)

    @_translates("Dropout", "SpatialDropout1D", "SpatialDropout2D",
                 "SpatialDropout3D")
    def _dropout(self, layer, config, inputs, out):
        x = inputs[0]
        cls = _class_of(layer)
        return self.emit("quant_qdq.dropout", layer.name, [x.ssa], [x.type],
                         self.new_value(out, x.nchw),
                         "rate = %s" % _f32(config.get("rate", 0.5)),
                         None if cls == "Dropout" else cls)

    @_translates("Flatten")
    def _flatten(self, layer, config, inputs, out):
        self.check_channels_last(layer, config)
        x = self.keras_layout(inputs[0])
        return self.emit("quant_qdq.flatten", layer.name, [x.ssa], [x.type],
                         self.new_value(out, False))

    @_translates("Reshape")
    def _reshape(self, layer, config, inputs, out):
        x = self.keras_layout(inputs[0])
        target = [int(d) for d in config["target_shape"]]
        batch = x.shape[0]
        if batch is None and -1 in target:
            raise KerasImportError(
                "layer '%s': Reshape to %s with a dynamic batch; give "
                "batch_size" % (layer.name, tuple(target)))
        shape = [-1 if batch is None else batch] + target
        return self.emit("quant_qdq.reshape", layer.name, [x.ssa], [x.type],
                         self.new_value(out, False),
                         "shape = %s" % _i64s(shape))

    @_translates("Permute")
    def _permute(self, layer, config, inputs, out):
        x = self.keras_layout(inputs[0])
        perm = [0] + [int(d) for d in config["dims"]]
        return self.emit("quant_qdq.transpose", layer.name, [x.ssa],
                         [x.type], self.new_value(out, False),
                         "perm = %s" % _i64s(perm))

    @_translates("Rescaling")
    def _rescaling(self, layer, config, inputs, out):
        scale = np.asarray(config.get("scale", 1.0), np.float32)
        offset = np.asarray(config.get("offset", 0.0), np.float32)
        y = self.with_constant(layer.name, inputs[0], scale, "Mul",
                               "Rescaling", out)
        if np.any(offset != 0):
            y = self.with_constant(layer.name + "/offset", y, offset, "Add",
                                   "Rescaling", out)
        return y

    @_translates("Normalization")
    def _normalization(self, layer, config, inputs, out):
        return self.normalization(layer, config, inputs[0], out)

    def fake_quantize(self, layer, x: _Value) -> _Value:
        """A FakeQuantize layer (keras_qat): a Q/DQ pair with its tracked
        range, on the channel-first tensor where there is one (so that it
        sits next to the convolution that reads it)."""
        if x.rank == 4:
            x = self.channel_first(x)
        qmax = 2 ** (layer.num_bits - 1) - 1
        amax = float(np.asarray(_to_numpy(layer.amax)))
        scale = np.float32(max(amax, 1e-12)) / np.float32(qmax)
        result = self.new_value(x.shape, x.nchw)
        self.qdq_pair(result.ssa, x.ssa, x.held_shape, layer.num_bits,
                      layer.narrow_range, None, [scale], layer.name)
        return result

    def qdq_pair(self, result, operand, shape, bits, narrow_range, axis,
                 scales, location):
        """`result = dequantize(quantize(operand))`, as insert-qdq places
        them (export turns a pair on a constant into integer weights)."""
        quantizer = self.quantizer(bits, narrow_range, axis)
        scale_text = ", ".join("%.9e" % v for v in scales)
        stored = self.fresh()
        float_type = _tensor_type(shape)
        int_type = float_type.replace("f32>", "i%d>" % bits)
        self.lines.append(
            "%s = quant_qdq.quantize %s %s scale [%s] : %s -> %s %s"
            % (stored, operand, quantizer, scale_text, float_type, int_type,
               self.loc(location)))
        self.lines.append(
            "%s = quant_qdq.dequantize %s %s scale [%s] : %s -> %s %s"
            % (result, stored, quantizer, scale_text, int_type, float_type,
               self.loc(location)))

    @staticmethod
    def quantizer(bits, narrow_range, axis=None):
        params = ["bits = %d" % bits]
        if not narrow_range:
            params.append("narrow_range = false")
        if axis is not None:
            params.append("axis = %d" % axis)
        return "<%s>" % ", ".join(params)

    def weight(self, array: np.ndarray, hint: str, channel_axis: int) -> str:
        """The constant `array`, behind a per-channel Q/DQ pair along
        `channel_axis` when the layer was trained so (QuantizeWeights)."""
        ssa = self.constant(array, hint)
        if self.weight_quantizer is None:
            return ssa
        bits, narrow = self.weight_quantizer
        axes = tuple(a for a in range(array.ndim) if a != channel_axis)
        amax = np.maximum(np.abs(array).max(axis=axes), np.float32(1e-12))
        scales = amax.astype(np.float32) / np.float32(2 ** (bits - 1) - 1)
        result = self.fresh()
        self.qdq_pair(result, ssa, array.shape, bits, narrow, channel_axis,
                      scales, hint)
        return result

    def relu(self, layer, config, x):
        max_value = config.get("max_value")
        slope = float(config.get("negative_slope", 0.0) or 0.0)
        threshold = float(config.get("threshold", 0.0) or 0.0)
        if threshold != 0.0:
            return None
        if max_value is None:
            if slope == 0.0:
                return self.custom_activation(layer, x, "relu", {})
            return self.custom_activation(layer, x, "leaky_relu",
                                          {"alpha": slope})
        if slope != 0.0:
            return None
        if float(max_value) == 6.0:
            return self.custom_activation(layer, x, "relu6", {})
        return self.custom_activation(layer, x, "clip",
                                      {"min": 0.0, "max": max_value})

    def custom_activation(self, layer, x, kind, attrs):
        """An activation layer of its own class (ReLU, LeakyReLU, ELU)."""
        return self.emit_activation(kind, layer.name, x, attrs,
                                    _class_of(layer))

    def normalization(self, layer, config, x, out):
        """Keras's Normalization: (x - mean) / max(sqrt(variance), eps)."""
        if getattr(layer, "invert", False) or config.get("invert"):
            return None
        axes = config.get("axis", -1)
        axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
        if len(axes) != 1 or axes[0] % x.rank != x.rank - 1:
            return None
        mean = _to_numpy(layer.mean).reshape(-1)
        std = np.maximum(np.sqrt(_to_numpy(layer.variance).reshape(-1)),
                         np.float32(1e-7))
        y = self.with_constant(layer.name, x, mean, "Sub", "Normalization",
                               out)
        return self.with_constant(layer.name + "/std", y, std, "Div",
                                  "Normalization", out)


def _class_of(layer) -> str:
    """The Keras class of `layer`, seen through a renaming."""
    return type(getattr(layer, "_layer", layer)).__name__


def _is_own(layer, class_name: str) -> bool:
    """Whether `layer` is keras_qat's `class_name`."""
    return (_class_of(layer) == class_name and type(
        getattr(layer, "_layer", layer)).__module__.startswith("quant_qdq"))


def _node_inputs(node):
    """The tensors a Keras node was called on, flat."""
    inputs = getattr(node, "keras_inputs", None)
    if inputs is None:
        inputs = node.input_tensors
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    return list(inputs)


def _history(tensor):
    history = tensor._keras_history
    return history[0], history[1], history[2]


def _graph_outputs(model):
    try:
        outputs = model.outputs
    except AttributeError:  # Keras 3: subclassed models have none.
        outputs = None
    if not outputs or not getattr(model, "inputs", None):
        raise KerasImportError(
            "model '%s' (%s) has no layer graph: build it on an Input (a "
            "Functional or Sequential model with a known input shape); "
            "subclassed models are not traced yet" % (
                model.name, type(model).__name__))
    return list(outputs)


def _node_outputs(node):
    outputs = node.output_tensors
    return list(outputs if isinstance(outputs, (list, tuple)) else [outputs])


def _dependency_order(outputs, known):
    """The (operation, node index) pairs `outputs` depend on, each after
    those it reads, leaving out `known` ones: an iterative depth-first walk
    (models are hundreds of layers deep)."""
    done = set(known)
    order = []
    stack = [(*_history(tensor)[:2], False) for tensor in reversed(outputs)]
    while stack:
        op, ni, expanded = stack.pop()
        key = (id(op), ni)
        if key in done:
            continue
        if expanded:
            done.add(key)
            order.append((op, ni))
            continue
        stack.append((op, ni, True))
        for tensor in reversed(_node_inputs(op._inbound_nodes[ni])):
            p, pni, _ = _history(tensor)
            if (id(p), pni) not in done:
                stack.append((p, pni, False))
    return order


def walk_graph(model, bound_inputs: list, visit) -> list:
    """Runs `visit(layer, node, inputs)` for every layer call `model`'s
    outputs depend on, in dependency order, with `inputs` what earlier
    visits returned for the tensors the call reads (`bound_inputs` for the
    model's inputs); `visit` returns one value per output of the call.
    Nested models are entered, their inputs bound to the caller's values.
    Returns the values of the model's outputs. Shared by the importer and
    the quantization-aware training model's builder."""
    inputs = list(model.inputs)
    if len(inputs) != len(bound_inputs):
        raise KerasImportError("model '%s' takes %d inputs, called on %d"
                               % (model.name, len(inputs), len(bound_inputs)))
    values = {}
    for tensor, value in zip(inputs, bound_inputs):
        op, ni, ti = _history(tensor)
        values[(id(op), ni, ti)] = value
    outputs = _graph_outputs(model)
    for op, ni in _dependency_order(outputs, [k[:2] for k in values]):
        node = op._inbound_nodes[ni]
        args = []
        for tensor in _node_inputs(node):
            p, pni, pti = _history(tensor)
            args.append(values[(id(p), pni, pti)])
        if is_keras_model(op):
            results = walk_graph(op, args, visit)
        else:
            if type(op).__name__ == "InputLayer":
                raise KerasImportError("input layer '%s' is not an input of "
                                       "the model" % op.name)
            results = visit(op, node, args)
        for i, value in enumerate(results):
            values[(id(op), ni, i)] = value
    return [values[(id(op), ni, ti)]
            for op, ni, ti in (_history(t) for t in outputs)]


class _Renamed:
    """A layer seen under another name (a layer, or a nested model's,
    called more than once); _class_of sees its class."""

    def __init__(self, layer, name):
        self._layer = layer
        self.name = name

    def __getattr__(self, attr):
        return getattr(self._layer, attr)


def import_keras(model, *, batch_size: Optional[int] = None,
                 source: Optional[str] = None) -> Module:
    """Imports a Keras model (a keras.Model of Keras 3 or tf.keras, or a
    .keras/.h5 file or SavedModel folder) into a Module of quant_qdq layer
    ops. `batch_size` fixes the batch dimension (None keeps it dynamic).
    Layers without an equivalent stay in float as generic ops, with a
    QuantQDQWarning naming them."""
    if isinstance(model, (str, os.PathLike)):
        source = source or os.fspath(model)
        model = load_keras_model(model)
    if not is_keras_model(model):
        raise TypeError("expected a keras.Model or a Keras file, got %s"
                        % type(model).__name__)
    flavour = "tf_keras" if type(model).__module__.startswith("tf_keras") \
        else "keras"
    # Diagnostics name the file, or say that the model was a live one.
    t = _Translator(source or "%s (keras.Model)" % model.name, batch_size,
                    flavour)
    _graph_outputs(model)
    args = []
    arg_texts = []
    for i, tensor in enumerate(model.inputs):
        op, _, _ = _history(tensor)
        value = _Value("%%arg%d" % i, t.shape_of(tensor), origin=op.name)
        args.append(value)
        arg_texts.append("%s: %s {quant_qdq.onnx.name = %s} %s" % (
            value.ssa, value.type, _mlir_string(op.name), t.loc(op.name)))
    outputs = walk_graph(model, args, t.visit)
    outputs = [t.keras_layout(v) for v in outputs]
    result_texts = []
    for tensor, value in zip(model.outputs, outputs):
        op, _, _ = _history(tensor)
        result_texts.append("%s {quant_qdq.onnx.name = %s}"
                            % (value.type, _mlir_string(op.name)))
    if t.unknown:
        warnings.warn(
            "Keras import of '%s': no quant_qdq equivalent for %s; those "
            "layers stay in float (generic ops of domain 'keras'), and ONNX "
            "export and execution cannot run them" % (
                model.name, "; ".join("%s (%s)" % (cls, ", ".join(names))
                                      for cls, names in t.unknown.items())),
            QuantQDQWarning, stacklevel=2)
    # Every op is located in the model file (line 0: no source line to
    # show), never in this text.
    file_loc = "loc(%s:0:0)" % _mlir_string(t.source)
    text = "\n".join(
        ["module attributes {quant_qdq.onnx.graph_name = %s, "
         "quant_qdq.onnx.producer_name = \"quant-qdq keras import\"} {"
         % _mlir_string(model.name),
         "func.func @main(%s) -> (%s) {" % (", ".join(arg_texts),
                                            ", ".join(result_texts))]
        + ["  " + line for line in t.lines]
        + ["  return %s : %s %s" % (", ".join(v.ssa for v in outputs),
                                    ", ".join(v.type for v in outputs),
                                    file_loc),
           "} %s" % file_loc, "} %s" % file_loc])
    return _quant_qdq.parse_module(text, t.source, t.resources)

