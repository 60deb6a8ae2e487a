"""A read-only view of a model's layer graph, for insertion cases.

This is what a CustomQDQInsertionCase receives where the toolkit passes a
Keras model: the layers of the imported module (ops implementing
QDQLayerOpInterface), in program order, each with its name, its Keras class
(``Conv2D``, ``Add``, ``MaxPooling2D``, an ONNX op type for layers kept as
``quant_qdq.generic``), its activation inputs and the layers that produce
and consume them. Q/DQ ops are looked through, so a graph read after
insertion shows the same layers and edges, and which inputs and weights
are now read quantized.
"""

from typing import Iterator, List, Tuple

__all__ = ["Graph", "Layer"]


class Layer:
    """One layer of a Graph. Read-only.

    Attributes:
      name: the layer's name (the ONNX node name); may be empty.
      class_name: the Keras class that QuantizationSpec entries with
        ``is_keras_class=True`` match.
      op_name: the MLIR op (``quant_qdq.conv2d`` ...).
      inputs: names of the activation input tensors, in the order that
        ``quantization_index`` counts.
      input_shapes, outputs, output_shapes: likewise.
      producers: for each activation input, the Layer that produces it, or
        None for a graph input or a constant.
      consumers: the layers that read any output, in use order.
      weight: the name of the weight tensor (kernel), or None.
      weight_shape, weight_channel_axis: its shape and output-channel axis.
      quantize_input_by_default, quantize_weight_by_default: the default
        table's answer for this layer.
      pass_through: whether Q/DQ may move across it (pooling, reshape...).
      quantized_inputs: the positions of the inputs the layer reads through
        a Q/DQ pair (what placement decided, once it ran).
      weight_quantized: whether it reads its weight through one.
      location: the MLIR location, naming the model file and node.
    """

    __slots__ = ("name", "class_name", "op_name", "inputs", "input_shapes",
                 "outputs", "output_shapes", "producers", "consumers",
                 "weight", "weight_shape", "weight_channel_axis",
                 "quantize_input_by_default", "quantize_weight_by_default",
                 "pass_through", "quantized_inputs", "weight_quantized",
                 "location", "_frozen")

    def __init__(self, data: dict) -> None:
        for key in self.__slots__:
            if key in data:
                value = data[key]
                if isinstance(value, list):
                    value = tuple(tuple(v) if isinstance(v, list) else v
                                  for v in value)
                object.__setattr__(self, key, value)
        object.__setattr__(self, "_frozen", False)

    def __setattr__(self, key, value):
        if self._frozen:
            raise AttributeError("layers of a Graph are read-only")
        object.__setattr__(self, key, value)

    @property
    def has_weight(self) -> bool:
        return self.weight is not None

    @property
    def num_inputs(self) -> int:
        return len(self.inputs)

    def __repr__(self) -> str:
        return "<Layer %r (%s)>" % (self.name, self.class_name)


class Graph:
    """The layers of a module, for a case's ``case(model, qspec)``."""

    def __init__(self, module) -> None:
        self._module = module
        data = module.layers()
        layers = [Layer(d) for d in data]
        for layer, d in zip(layers, data):
            object.__setattr__(layer, "producers", tuple(
                None if p is None else layers[p] for p in d["producers"]))
            object.__setattr__(layer, "consumers",
                               tuple(layers[c] for c in d["consumers"]))
            object.__setattr__(layer, "_frozen", True)
        self._layers: Tuple[Layer, ...] = tuple(layers)
        self._by_name = {}
        for layer in layers:
            self._by_name.setdefault(layer.name, layer)

    @property
    def layers(self) -> Tuple[Layer, ...]:
        """Every layer, in program order (like ``keras.Model.layers``)."""
        return self._layers

    @property
    def module(self):
        """The module the view was read from (for library cases)."""
        return self._module

    def get_layer(self, name: str) -> Layer:
        """The first layer named `name`; ValueError if there is none, as
        ``keras.Model.get_layer`` does."""
        try:
            return self._by_name[name]
        except KeyError:
            raise ValueError("no layer named %r" % (name,)) from None

    def layers_of_class(self, class_name: str) -> List[Layer]:
        return [layer for layer in self._layers
                if layer.class_name == class_name]

    def __iter__(self) -> Iterator[Layer]:
        return iter(self._layers)

    def __len__(self) -> int:
        return len(self._layers)

    def __repr__(self) -> str:
        return "<Graph of %d layers>" % len(self._layers)
