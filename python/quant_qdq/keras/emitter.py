"""Writing the importer's function body: values, constants, layer ops,
layouts and Q/DQ pairs, as MLIR text (mlir_text.py says why text)."""

from typing import Dict, List, Optional, Sequence

import numpy as np

from .mlir_text import (NCHW, NHWC, Value, attr_dict, f32, f32_array, i64s,
                        mlir_string, tensor_type)

__all__ = ["Emitter"]


class Emitter:
    """Appends ops to a function body as MLIR text, keeps the weights as
    resources, and holds 4-D tensors channel-first (one transpose per value
    where the Keras layout is needed)."""

    def __init__(self, source: str, batch_size: Optional[int]):
        self.source = source
        self.batch_size = batch_size
        self.lines: List[str] = []
        self.resources: Dict[str, np.ndarray] = {}
        self.next_value = 0
        self.names: Dict[str, int] = {}

    # -- emission ----------------------------------------------------------

    def fresh(self) -> str:
        self.next_value += 1
        return "%%v%d" % self.next_value

    def loc(self, name: str) -> str:
        return "loc(%s(%s:0:0))" % (mlir_string(name),
                                    mlir_string(self.source))

    def unique_name(self, name: str) -> str:
        """Layer names are unique in a Keras model, but not across nested
        models used twice."""
        count = self.names.get(name, 0)
        self.names[name] = count + 1
        return name if count == 0 else "%s_%d" % (name, count)

    def resource_key(self, hint: str) -> str:
        """A new resource name made of `hint`."""
        key = "".join(c if c.isalnum() or c == "_" else "_" for c in hint)
        key = "w_" + key
        while key in self.resources:
            key += "_"
        return key

    def constant(self, array: np.ndarray, hint: str) -> str:
        key = self.resource_key(hint)
        array = f32_array(array)
        self.resources[key] = array
        ssa = self.fresh()
        self.lines.append("%s = arith.constant dense_resource<%s> : %s %s"
                          % (ssa, key, tensor_type(array.shape),
                             self.loc(hint)))
        return ssa

    def emit(self, op: str, name: str, operands: Sequence[str],
             operand_types: Sequence[str], result: Value, attrs: str = "",
             layer_class: Optional[str] = None) -> Value:
        """Appends `%r = op "name" operands {attrs} : (types) -> type`."""
        self.lines.append("%s = %s %s %s%s : (%s) -> %s %s" % (
            result.ssa, op, mlir_string(name), ", ".join(operands),
            attr_dict([attrs], layer_class), ", ".join(operand_types),
            result.type, self.loc(name)))
        return result

    def emit_activation(self, kind: str, name: str, x: Value, attrs: dict,
                        layer_class: Optional[str] = None) -> Value:
        """Appends `%r = quant_qdq.activation kind "name" %x {attrs}`."""
        result = self.new_value(x.shape, x.nchw)
        entries = ["%s = %s" % (k, f32(v)) for k, v in attrs.items()]
        self.lines.append("%s = quant_qdq.activation %s %s %s%s : %s %s" % (
            result.ssa, kind, mlir_string(name), x.ssa,
            attr_dict(entries, layer_class), x.type, self.loc(name)))
        return result

    def emit_generic(self, op_type: str, name: str, operands: List[Value],
                     results: List[Value], layer_class: Optional[str] = None,
                     domain: Optional[str] = None) -> List[Value]:
        """Appends `%r... = quant_qdq.generic "op_type" "name" operands`."""
        entries = ["domain = %s" % mlir_string(domain) if domain else ""]
        self.lines.append(
            "%s = quant_qdq.generic %s %s %s%s : (%s) -> (%s) %s" % (
                ", ".join(r.ssa for r in results), mlir_string(op_type),
                mlir_string(name), ", ".join(v.ssa for v in operands),
                attr_dict(entries, layer_class),
                ", ".join(v.type for v in operands),
                ", ".join(r.type for r in results), self.loc(name)))
        return results

    def new_value(self, shape, nchw: bool) -> Value:
        return Value(self.fresh(), shape, nchw and len(shape) == 4)

    # -- layouts -----------------------------------------------------------

    def relayout(self, value: Value, nchw: bool) -> Value:
        """`value` held channel-first (nchw) or in the Keras layout; one
        transpose, made once per value."""
        if value.rank != 4 or value.nchw == nchw:
            return value
        if value.other_layout is None:
            result = Value(self.fresh(), value.shape, nchw, value.origin)
            name = "%s/to_%s" % (value.origin, "nchw" if nchw else "nhwc")
            if value.shape[1] == 1 and value.shape[2] == 1:
                # 1x1 images (squeeze-and-excitation) are laid out alike
                # either way: a reshape, not a data movement.
                dims = [-1 if d is None else d for d in result.held_shape]
                op, attr = "reshape", "shape = %s" % i64s(dims)
            else:
                op, attr = "transpose", "perm = %s" % i64s(
                    NCHW if nchw else NHWC)
            self.emit("quant_qdq." + op, name, [value.ssa], [value.type],
                      result, attr)
            result.other_layout = value
            value.other_layout = result
        return value.other_layout

    def keras_layout(self, value: Value) -> Value:
        return self.relayout(value, False)

    def channel_first(self, value: Value) -> Value:
        return self.relayout(value, True)

    # -- shapes ------------------------------------------------------------

    def shape_of(self, keras_tensor):
        shape = list(keras_tensor.shape)
        if shape and shape[0] is None and self.batch_size is not None:
            shape[0] = self.batch_size
        return tuple(shape)

    # -- Q/DQ pairs --------------------------------------------------------

    def qdq_pair(self, result, operand, shape, bits, narrow_range, axis,
                 scales, location, signed=True, zero_points=None):
        """`result = dequantize(quantize(operand))`, as insert-qdq places
        them (export turns a pair on a constant into integer weights).
        Zero points, when given and not all 0, make the pair asymmetric."""
        quantizer, params = self.quantizer_text(bits, narrow_range, axis,
                                                scales, signed, zero_points)
        stored = self.fresh()
        float_type = tensor_type(shape)
        int_type = float_type.replace("f32>", "i%d>" % bits)
        self.lines.append(
            "%s = quant_qdq.quantize %s %s %s : %s -> %s %s"
            % (stored, operand, quantizer, params, float_type, int_type,
               self.loc(location)))
        self.lines.append(
            "%s = quant_qdq.dequantize %s %s %s : %s -> %s %s"
            % (result, stored, quantizer, params, int_type, float_type,
               self.loc(location)))

    def integer_weight(self, stored: np.ndarray, bits, narrow_range, axis,
                       scales, location, signed=True,
                       zero_points=None) -> str:
        """`dequantize(stored)`, `stored` the integers of a weight already
        quantized, held `bits` wide (export writes them as an integer
        initializer)."""
        key = self.resource_key(location + "_stored")
        self.resources[key] = np.require(stored.astype(
            np.int8 if bits <= 8 else np.int16), requirements="C")
        storage = self.fresh()
        int_type = tensor_type(stored.shape).replace("f32>", "i%d>" % bits)
        self.lines.append("%s = arith.constant dense_resource<%s> : %s %s"
                          % (storage, key, int_type, self.loc(location)))
        quantizer, params = self.quantizer_text(bits, narrow_range, axis,
                                                scales, signed, zero_points)
        result = self.fresh()
        self.lines.append(
            "%s = quant_qdq.dequantize %s %s %s : %s -> %s %s"
            % (result, storage, quantizer, params, int_type,
               tensor_type(stored.shape), self.loc(location)))
        return result

    def quantizer_text(self, bits, narrow_range, axis, scales, signed,
                       zero_points):
        """(the quantizer attribute, its scale and zero point clauses);
        zero points not all 0 make it asymmetric."""
        asymmetric = zero_points is not None and any(
            int(z) != 0 for z in zero_points)
        quantizer = self.quantizer(bits, narrow_range, axis, signed,
                                   asymmetric)
        params = "scale [%s]" % ", ".join("%.9e" % v for v in scales)
        if asymmetric:
            params += " zero_point [%s]" % ", ".join(
                "%d" % z for z in zero_points)
        return quantizer, params

    @staticmethod
    def quantizer(bits, narrow_range, axis=None, signed=True,
                  asymmetric=False):
        params = ["bits = %d" % bits]
        if not signed:
            params.append("is_signed = false")
        if not narrow_range:
            params.append("narrow_range = false")
        if asymmetric:
            params.append("symmetric = false")
        if axis is not None:
            params.append("axis = %d" % axis)
        return "<%s>" % ", ".join(params)
