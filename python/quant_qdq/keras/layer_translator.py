"""Keras layers as quant_qdq layer ops: one method per layer family.

Each translation keeps the layer's name and, where it differs from the
op's, its Keras class (`quant_qdq.layer_class`), so that a QuantizationSpec
written for NVIDIA's toolkit applies unchanged. A layer no translation
knows stays in float as a generic op of its class (`visit` records it).
"""

from typing import Callable, Dict, List, Optional

import numpy as np

from .emitter import Emitter
from .graph_walk import Renamed, class_of, is_own, node_outputs
from .mlir_text import Value, f32, i64s, pair, tensor_type, to_numpy
from .models import KerasImportError
from .quantized_import import WrapperQuantization, qdq_parameters_of

__all__ = ["LayerTranslator"]

# Keras class name -> the LayerTranslator method that translates it.
_TRANSLATIONS: Dict[str, Callable] = {}


def translates(*class_names):
    def register(method):
        for name in class_names:
            _TRANSLATIONS[name] = method
        return method
    return register


class LayerTranslator(Emitter):
    """Translates the layer calls walk_graph visits, in order."""

    def __init__(self, source: str, batch_size: Optional[int],
                 keras_version: str):
        super().__init__(source, batch_size)
        self.legacy = keras_version == "tf_keras"
        self.unknown: Dict[str, List[str]] = {}
        # (bits, narrow range) of the kernel of the layer being translated,
        # when it was trained with it fake-quantized.
        self.weight_quantizer = None
        # The quantizers of the QuantizeWrapper being translated (TFMOT's
        # API), if any.
        self.wrapped: Optional[WrapperQuantization] = None

    # -- layers ------------------------------------------------------------

    def activation(self, name: str, kind, value: Value,
                   layer_class: Optional[str] = None) -> Value:
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

    def fused_activation(self, layer, config, value: Value) -> Value:
        kind = config.get("activation")
        if not isinstance(kind, str):
            kind = getattr(getattr(layer, "activation", None), "__name__",
                           None)
        pre, post = None, None
        if self.wrapped is not None:
            pre, post = self.wrapped.take_activation() or (None, None)
        name = "%s/%s" % (layer.name, kind)
        if pre is not None:
            value = self.quantized(value, pre, name + "/quantize_input")
        out = self.activation(name, kind, value)
        if out is None:
            raise KerasImportError(
                "layer '%s' (%s): activation %r has no quant_qdq equivalent"
                % (layer.name, class_of(layer), kind))
        if post is not None:
            out = self.quantized(out, post, name + "/quantize")
        return out

    def same_pads(self, value: Value, kernel, strides, dilations, name):
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
                "supported" % (layer.name, class_of(layer), fmt))

    def conv(self, layer, config, inputs, out_shape, depthwise=False):
        self.check_channels_last(layer, config)
        x = self.channel_first(inputs[0])
        kernel_variable = (layer.kernel if hasattr(layer, "kernel")
                           else layer.depthwise_kernel)
        kernel = to_numpy(kernel_variable)
        kh, kw = kernel.shape[:2]
        if depthwise:
            channels, multiplier = kernel.shape[2], kernel.shape[3]
            weight = kernel.transpose(2, 3, 0, 1).reshape(
                channels * multiplier, 1, kh, kw)
            groups = channels
        else:
            weight = kernel.transpose(3, 2, 0, 1)
            groups = int(config.get("groups", 1) or 1)
        strides = pair(config.get("strides", 1))
        dilations = pair(config.get("dilation_rate", 1))
        pads = self.pads_of(config, inputs[0], (kh, kw), strides, dilations,
                            layer.name)
        operands = [x.ssa, self.weight(weight, layer.name + "_kernel", 0,
                                       kernel_variable)]
        types = [x.type, tensor_type(weight.shape)]
        if config.get("use_bias", True) and getattr(layer, "bias", None) \
                is not None:
            bias = to_numpy(layer.bias)
            operands.append(self.bias(bias, layer.name + "_bias",
                                      layer.bias))
            types.append(tensor_type(bias.shape))
        attrs = ["strides = %s" % i64s(strides),
                 "pads = %s" % i64s(pads),
                 "dilations = %s" % i64s(dilations)]
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
        kernel = to_numpy(layer.kernel)
        operands = [x.ssa, self.weight(kernel, layer.name + "_kernel", 1,
                                       layer.kernel)]
        types = [x.type, tensor_type(kernel.shape)]
        if config.get("use_bias", True) and layer.bias is not None:
            bias = to_numpy(layer.bias)
            operands.append(self.bias(bias, layer.name + "_bias",
                                      layer.bias))
            types.append(tensor_type(bias.shape))
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
        gamma = to_numpy(layer.gamma) if config.get("scale", True) else ones
        beta = (to_numpy(layer.beta) if config.get("center", True)
                else np.zeros(channels, np.float32))
        params = [gamma, beta, to_numpy(layer.moving_mean),
                  to_numpy(layer.moving_variance)]
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
            types.append(tensor_type(array.shape))
        attrs = ["epsilon = %s" % f32(epsilon)]
        if x.rank != 4 and x.rank != 2:
            attrs.append("layout = #quant_qdq<layout nhwc>")
        return self.emit("quant_qdq.batch_norm", name, operands, types,
                         self.new_value(out_shape, x.rank == 4),
                         ", ".join(attrs), layer_class)

    def pool(self, layer, config, inputs, out_shape, op):
        self.check_channels_last(layer, config)
        x = self.channel_first(inputs[0])
        kernel = pair(config["pool_size"])
        strides = pair(config.get("strides") or kernel)
        pads = self.pads_of(config, inputs[0], kernel, strides, (1, 1),
                            layer.name)
        attrs = ("kernel_shape = %s, strides = %s, pads = %s"
                 % (i64s(kernel), i64s(strides), i64s(pads)))
        return self.emit(op, layer.name, [x.ssa], [x.type],
                         self.new_value(out_shape, True), attrs)

    def global_pool(self, layer, config, inputs, out_shape, op):
        self.check_channels_last(layer, config)
        x = self.channel_first(inputs[0])
        keep = bool(config.get("keepdims", False))
        attrs = "" if keep else "keep_dims = false"
        return self.emit(op, layer.name, [x.ssa], [x.type],
                         self.new_value(out_shape, keep), attrs)

    def common_layout(self, inputs: List[Value]) -> List[Value]:
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
                      out_shapes) -> List[Value]:
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
        const = Value(self.constant(array, name + "_" + op_type.lower()),
                       array.shape)
        return self.emit_generic(op_type, name, [x, const],
                                 [self.new_value(out_shape, x.nchw)],
                                 layer_class)[0]

    def visit(self, layer, node, inputs: List[Value]) -> List[Value]:
        """The values of one layer call (walk_graph's visitor)."""
        out_shapes = [self.shape_of(o) for o in node_outputs(node)]
        self.weight_quantizer = None
        self.wrapped = None
        if is_own(layer, "QuantizeWeights"):
            # A layer trained with its kernel fake-quantized: the layer,
            # and a per-channel Q/DQ on its kernel.
            self.weight_quantizer = (layer.num_bits, layer.narrow_range)
            layer = layer.layer
        elif is_own(layer, "QuantizeWrapper"):
            # TFMOT's API: the layer, with its quantizers as Q/DQ pairs.
            self.wrapped = WrapperQuantization(layer)
            layer = layer.layer
        elif is_own(layer, "QuantizeAnnotate"):
            layer = layer.layer
        cls = type(layer).__name__
        config = layer.get_config() if hasattr(layer, "get_config") else {}
        name = self.unique_name(layer.name)
        if name != layer.name:
            layer = Renamed(layer, name)
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
        if self.wrapped is not None:
            results = self.quantize_outputs(self.wrapped, results, name)
        for value in results:
            value.origin = value.origin or name
        return results

    def translate(self, layer, config, inputs: List[Value],
                  out_shapes) -> Optional[List[Value]]:
        """The values `layer` computes from `inputs`, or None when no op
        models it."""
        if is_own(layer, "FakeQuantize"):
            return [self.fake_quantize(layer, inputs[0])]
        if is_own(layer, "QuantizeLayer"):
            params = qdq_parameters_of(layer.quantizer,
                                       layer.quantizer_variables, layer.name,
                                       "input")
            return [self.quantized(inputs[0], params, layer.name)]
        handler = _TRANSLATIONS.get(class_of(layer))
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

    @translates("Conv2D", "Convolution2D")
    def _conv2d(self, layer, config, inputs, out):
        return self.conv(layer, config, inputs, out)

    @translates("DepthwiseConv2D")
    def _depthwise_conv2d(self, layer, config, inputs, out):
        return self.conv(layer, config, inputs, out, depthwise=True)

    @translates("Dense")
    def _dense(self, layer, config, inputs, out):
        return self.dense(layer, config, inputs, out)

    @translates("BatchNormalization")
    def _batch_norm(self, layer, config, inputs, out):
        return self.batch_norm(layer, config, inputs, out)

    @translates("Activation")
    def _activation(self, layer, config, inputs, out):
        return self.activation(layer.name, config.get("activation"),
                               inputs[0])

    @translates("ReLU")
    def _relu(self, layer, config, inputs, out):
        return self.relu(layer, config, inputs[0])

    @translates("LeakyReLU")
    def _leaky_relu(self, layer, config, inputs, out):
        alpha = config.get("negative_slope", config.get("alpha", 0.3))
        return self.custom_activation(layer, inputs[0], "leaky_relu",
                                      {"alpha": alpha})

    @translates("ELU")
    def _elu(self, layer, config, inputs, out):
        return self.custom_activation(layer, inputs[0], "elu",
                                      {"alpha": config.get("alpha", 1.0)})

    @translates("Softmax")
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

    @translates("MaxPooling2D", "MaxPool2D")
    def _max_pool(self, layer, config, inputs, out):
        return self.pool(layer, config, inputs, out, "quant_qdq.max_pool2d")

    @translates("AveragePooling2D", "AvgPool2D")
    def _avg_pool(self, layer, config, inputs, out):
        return self.pool(layer, config, inputs, out, "quant_qdq.avg_pool2d")

    @translates("GlobalAveragePooling2D", "GlobalAvgPool2D")
    def _global_avg_pool(self, layer, config, inputs, out):
        return self.global_pool(layer, config, inputs, out,
                                "quant_qdq.global_avg_pool2d")

    @translates("GlobalMaxPooling2D", "GlobalMaxPool2D")
    def _global_max_pool(self, layer, config, inputs, out):
        return self.global_pool(layer, config, inputs, out,
                                "quant_qdq.global_max_pool2d")

    @translates("ZeroPadding2D")
    def _zero_padding(self, layer, config, inputs, out):
        self.check_channels_last(layer, config)
        (top, bottom), (left, right) = [pair(p)
                                        for p in pair(config["padding"])]
        x = self.channel_first(inputs[0])
        return self.emit("quant_qdq.pad", layer.name, [x.ssa], [x.type],
                         self.new_value(out, True), "pads = %s" % i64s(
                             [0, 0, top, left, 0, 0, bottom, right]))

    @translates("Add", "Multiply")
    def _add_multiply(self, layer, config, inputs, out):
        return self.elementwise(layer, inputs, out,
                                "quant_qdq." + class_of(layer).lower())

    @translates("Subtract", "Maximum", "Minimum", "Average")
    def _binary_generic(self, layer, config, inputs, out):
        cls = class_of(layer)
        op_type = {"Subtract": "Sub", "Maximum": "Max", "Minimum": "Min",
                   "Average": "Mean"}[cls]
        inputs = self.common_layout(inputs)
        return self.emit_generic(op_type, layer.name, inputs,
                                 [self.new_value(out, inputs[0].nchw)],
                                 cls)

    @translates("Concatenate")
    def _concatenate(self, layer, config, inputs, out):
        inputs = self.common_layout(inputs)
        axis = inputs[0].axis(config.get("axis", -1))
        return self.emit("quant_qdq.concat", layer.name,
                         [v.ssa for v in inputs], [v.type for v in inputs],
                         self.new_value(out, inputs[0].nchw),
                         "axis = %d : i64" % axis)

    @translates("Dropout", "SpatialDropout1D", "SpatialDropout2D",
                 "SpatialDropout3D")
    def _dropout(self, layer, config, inputs, out):
        x = inputs[0]
        cls = class_of(layer)
        return self.emit("quant_qdq.dropout", layer.name, [x.ssa], [x.type],
                         self.new_value(out, x.nchw),
                         "rate = %s" % f32(config.get("rate", 0.5)),
                         None if cls == "Dropout" else cls)

    @translates("Flatten")
    def _flatten(self, layer, config, inputs, out):
        self.check_channels_last(layer, config)
        x = self.keras_layout(inputs[0])
        return self.emit("quant_qdq.flatten", layer.name, [x.ssa], [x.type],
                         self.new_value(out, False))

    @translates("Reshape")
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
                         "shape = %s" % i64s(shape))

    @translates("Permute")
    def _permute(self, layer, config, inputs, out):
        x = self.keras_layout(inputs[0])
        perm = [0] + [int(d) for d in config["dims"]]
        return self.emit("quant_qdq.transpose", layer.name, [x.ssa],
                         [x.type], self.new_value(out, False),
                         "perm = %s" % i64s(perm))

    @translates("Rescaling")
    def _rescaling(self, layer, config, inputs, out):
        scale = np.asarray(config.get("scale", 1.0), np.float32)
        offset = np.asarray(config.get("offset", 0.0), np.float32)
        y = self.with_constant(layer.name, inputs[0], scale, "Mul",
                               "Rescaling", out)
        if np.any(offset != 0):
            y = self.with_constant(layer.name + "/offset", y, offset, "Add",
                                   "Rescaling", out)
        return y

    @translates("Normalization")
    def _normalization(self, layer, config, inputs, out):
        return self.normalization(layer, config, inputs[0], out)

    def fake_quantize(self, layer, x: Value) -> Value:
        """A FakeQuantize layer (qat_layers): a Q/DQ pair with its tracked
        range, on the channel-first tensor where there is one (so that it
        sits next to the convolution that reads it)."""
        if x.rank == 4:
            x = self.channel_first(x)
        qmax = 2 ** (layer.num_bits - 1) - 1
        amax = float(np.asarray(to_numpy(layer.amax)))
        scale = np.float32(max(amax, 1e-12)) / np.float32(qmax)
        result = self.new_value(x.shape, x.nchw)
        self.qdq_pair(result.ssa, x.ssa, x.held_shape, layer.num_bits,
                      layer.narrow_range, None, [scale], layer.name)
        return result

    def quantize_outputs(self, wrapped, results, name):
        """`results` behind the wrapper's output quantizers, after checking
        that the translation placed all its other quantizers."""
        wrapped.check_placed()
        if len(wrapped.outputs) > len(results):
            raise KerasImportError("layer '%s': %d output quantizers for %d "
                                   "outputs" % (name, len(wrapped.outputs),
                                                len(results)))
        results = list(results)
        for i, params in enumerate(wrapped.outputs):
            results[i] = self.quantized(
                results[i], params, name + ("/quantize" if i == 0 else
                                            "/quantize_%d" % i))
        return results

    def quantized(self, x: Value, params, location: str) -> Value:
        """`x` behind the Q/DQ pair `params` (a QDQParameters; per axis
        means along the Keras last axis)."""
        axis = None
        if params.per_axis:
            axis = 1 if x.nchw else x.rank - 1
        result = self.new_value(x.shape, x.nchw)
        self.qdq_pair(result.ssa, x.ssa, x.held_shape, params.bits,
                      params.narrow_range, axis, params.scale, location,
                      params.signed, params.zero_point)
        return result

    def tfmot_weight(self, array, params, channel_axis, hint):
        """A weight a TFMOT quantizer quantizes, as the integers it rounds
        it to (TensorFlow's rounding, so exactly the model's) and their
        dequantize, in the narrowest of ONNX's 4, 8 and 16 bits that holds
        them; a per-axis quantizer's ranges, along the Keras last axis, are
        those of `channel_axis` here (repeated along it for a depthwise
        kernel, whose multiplier is the Keras last axis)."""
        stored = params.quantize(array, channel_axis)
        scale, zero_point, axis = params.scale, params.zero_point, None
        if params.per_axis:
            axis = channel_axis
            scale, zero_point, _ = params.along(array.shape[channel_axis])
        wire = next(b for b in (4, 8, 16) if params.bits <= b)
        return self.integer_weight(stored, wire, params.narrow_range, axis,
                                   scale, hint, params.signed, zero_point)

    def bias(self, array: np.ndarray, hint: str, variable) -> str:
        """A bias constant, quantized when a TFMOT config says so."""
        params = self.wrapped.weight(variable) if self.wrapped else None
        if params is None:
            return self.constant(array, hint)
        return self.tfmot_weight(array, params, 0, hint)

    def weight(self, array: np.ndarray, hint: str, channel_axis: int,
               variable=None) -> str:
        """The constant `array`, behind a per-channel Q/DQ pair along
        `channel_axis` when the layer was trained so (QuantizeWeights), or
        behind its quantizer's pair when a TFMOT config quantizes
        `variable` (the Keras weight it was read from)."""
        params = self.wrapped.weight(variable) if self.wrapped else None
        if params is not None:
            return self.tfmot_weight(array, params, channel_axis, hint)
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
                                    class_of(layer))

    def normalization(self, layer, config, x, out):
        """Keras's Normalization: (x - mean) / max(sqrt(variance), eps)."""
        if getattr(layer, "invert", False) or config.get("invert"):
            return None
        axes = config.get("axis", -1)
        axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
        if len(axes) != 1 or axes[0] % x.rank != x.rank - 1:
            return None
        mean = to_numpy(layer.mean).reshape(-1)
        std = np.maximum(np.sqrt(to_numpy(layer.variance).reshape(-1)),
                         np.float32(1e-7))
        y = self.with_constant(layer.name, x, mean, "Sub", "Normalization",
                               out)
        return self.with_constant(layer.name + "/std", y, std, "Div",
                                  "Normalization", out)
