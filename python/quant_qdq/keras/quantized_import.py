"""What the layers of TFMOT's API (quantize_wrapper.py) become on import:
the Q/DQ pairs their quantizers are at inference.

A QuantizeWrapper's weight quantizers become Q/DQ pairs on the weights
(integer initializers on export), its activation quantizers pairs before
and after the layer's fused activation, its output quantizers pairs on
its outputs; a QuantizeLayer a pair on its input. Each quantizer says its
scale and zero point (`qdq_parameters`); one that cannot (a user-written
quantizer) makes the import fail naming the layer and the quantizer, so
that nothing is exported that would compute otherwise than the model.
"""

import warnings

from .._quant_qdq import QuantQDQWarning
from .models import KerasImportError

__all__ = ["WrapperQuantization", "qdq_parameters_of"]


def qdq_parameters_of(quantizer, variables, layer_name, what,
                      weight=False):
    """The quantizer's QDQParameters, or a KerasImportError saying that it
    has no Q/DQ form. Weights of any width are stored in a wider ONNX
    integer; a tensor computed at run time needs a QuantizeLinear, which
    stores 4, 8 or 16 bits only."""
    form = getattr(quantizer, "qdq_parameters", None)
    params = form(variables) if form is not None else None
    if params is None:
        raise KerasImportError(
            "layer '%s': %s quantizer %s has no Q/DQ form (only "
            "LastValueQuantizer, MovingAverageQuantizer, AllValuesQuantizer "
            "or a Quantizer whose qdq_parameters returns one export to ONNX)"
            % (layer_name, what, type(quantizer).__name__))
    if float(params.scale.max()) < 1e-30:
        warnings.warn(
            "layer '%s': the range of its %s quantizer %s is empty (never "
            "trained: TFMOT's input range starts at [0, 0]); its Q/DQ pair "
            "turns the tensor into zeros" % (layer_name, what,
                                             type(quantizer).__name__),
            QuantQDQWarning, stacklevel=2)
    if not weight and params.bits not in (4, 8, 16):
        raise KerasImportError(
            "layer '%s': %s quantizer %s has %d bits; ONNX's QuantizeLinear "
            "stores 4, 8 or 16 (weights of other widths export, stored "
            "wider)" % (layer_name, what, type(quantizer).__name__,
                        params.bits))
    return params


class WrapperQuantization:
    """The Q/DQ parameters of one QuantizeWrapper's quantizers, and which
    of them the translation has placed."""

    def __init__(self, wrapper):
        name = wrapper.layer.name
        held = wrapper.quantizers
        self.layer_name = name
        self.weights = {}
        self.weight_names = {}
        for variable, quantizer, variables in held.weights:
            self.weights[id(variable)] = qdq_parameters_of(
                quantizer, variables, name, "weight '%s'" % variable.name,
                weight=True)
            self.weight_names[id(variable)] = variable.name
        self.activation = None
        if held.activations:
            if len(held.activations) > 1:
                raise KerasImportError(
                    "layer '%s': %d activations quantized; export places "
                    "one, the layer's fused activation"
                    % (name, len(held.activations)))
            quantized = held.activations[0]
            self.activation = tuple(
                None if v is None else qdq_parameters_of(
                    quantized.quantizer, v, name, "activation")
                for v in (quantized.pre_variables, quantized.post_variables))
        self.outputs = [qdq_parameters_of(q, v, name, "output")
                        for q, v in held.outputs]
        self.placed = set()

    def weight(self, variable):
        """The parameters of `variable`'s quantizer (None when it is not
        quantized), marking it placed."""
        if variable is None or id(variable) not in self.weights:
            return None
        self.placed.add(id(variable))
        return self.weights[id(variable)]

    def take_activation(self):
        """(pre, post) parameters of the fused activation's quantizer, or
        None; taken once."""
        activation, self.activation = self.activation, None
        return activation

    def check_placed(self):
        """Every quantizer found its tensor in the translation."""
        left = [self.weight_names[i] for i in self.weights
                if i not in self.placed]
        if self.activation is not None:
            left.append("its activation")
        if left:
            raise KerasImportError(
                "layer '%s': the quantizer of %s has no place in the layer's "
                "ONNX form" % (self.layer_name, ", ".join(left)))
