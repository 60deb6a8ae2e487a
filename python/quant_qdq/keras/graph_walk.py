"""Walking a Keras model's layer graph: Functional and Sequential models
of Keras 3 or tf.keras, nested models entered.

Shared by the importer and by quantization-aware training's model builder,
which rebuild the same graph into different things.
"""

from .models import KerasImportError, is_keras_model

__all__ = ["walk_graph", "graph_outputs", "history", "node_outputs",
           "class_of", "is_own", "Renamed", "fresh_inputs"]


def class_of(layer) -> str:
    """The Keras class of `layer`, seen through a renaming."""
    return type(getattr(layer, "_layer", layer)).__name__


def is_own(layer, class_name: str) -> bool:
    """Whether `layer` is qat_layers' `class_name`."""
    return (class_of(layer) == class_name and type(
        getattr(layer, "_layer", layer)).__module__.startswith("quant_qdq"))


def node_inputs(node):
    """The tensors a Keras node was called on, flat."""
    inputs = getattr(node, "keras_inputs", None)
    if inputs is None:
        inputs = node.input_tensors
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    return list(inputs)


def history(tensor):
    """(the layer, its node index, the output index) that made `tensor`."""
    layer, node_index, tensor_index = tensor._keras_history[:3]
    return layer, node_index, tensor_index


def graph_outputs(model):
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


def node_outputs(node):
    outputs = node.output_tensors
    return list(outputs if isinstance(outputs, (list, tuple)) else [outputs])


def dependency_order(outputs, known):
    """The (operation, node index) pairs `outputs` depend on, each after
    those it reads, leaving out `known` ones: an iterative depth-first walk
    (models are hundreds of layers deep)."""
    done = set(known)
    order = []
    stack = [(*history(tensor)[:2], False) for tensor in reversed(outputs)]
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
        for tensor in reversed(node_inputs(op._inbound_nodes[ni])):
            p, pni, _ = history(tensor)
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
        op, ni, ti = history(tensor)
        values[(id(op), ni, ti)] = value
    outputs = graph_outputs(model)
    for op, ni in dependency_order(outputs, [k[:2] for k in values]):
        node = op._inbound_nodes[ni]
        args = []
        for tensor in node_inputs(node):
            p, pni, pti = history(tensor)
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
            for op, ni, ti in (history(t) for t in outputs)]


def fresh_inputs(model, k):
    """New `k.Input`s (k: keras or tf_keras) of the shapes, types and
    names of `model`'s inputs, to rebuild its graph on."""
    inputs = []
    for tensor in model.inputs:
        layer = history(tensor)[0]
        inputs.append(k.Input(batch_shape=tuple(tensor.shape),
                              dtype=tensor.dtype, name=layer.name))
    return inputs


class Renamed:
    """A layer seen under another name (a layer, or a nested model's,
    called more than once); class_of sees its class."""

    def __init__(self, layer, name):
        self._layer = layer
        self.name = name

    def __getattr__(self, attr):
        return getattr(self._layer, attr)
