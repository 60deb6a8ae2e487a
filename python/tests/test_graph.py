"""The read-only layer graph that Python cases receive."""

import pytest

import quant_qdq
from qdq_helpers import parse_report
from quant_qdq import Graph, insert_qdq


@pytest.fixture
def graph(block_model):
    return Graph(quant_qdq.import_onnx(block_model))


def test_layers_in_program_order(graph):
    assert [(layer.name, layer.class_name) for layer in graph.layers] == [
        ("conv1", "Conv2D"), ("relu1", "Activation"),
        ("pool1", "MaxPooling2D"), ("conv2", "Conv2D"),
        ("relu2", "Activation"), ("conv3", "Conv2D"), ("add1", "Add"),
        ("relu3", "Activation"), ("gap", "GlobalAveragePooling2D"),
        ("flatten", "Flatten"), ("fc", "Dense")]
    assert len(graph) == 11


def test_edges(graph):
    add = graph.get_layer("add1")
    assert [p.name for p in add.producers] == ["conv3", "pool1"]
    assert add.inputs == ("conv3_output_0", "pool1_output_0")
    assert add.num_inputs == 2 and not add.has_weight
    pool = graph.get_layer("pool1")
    assert [c.name for c in pool.consumers] == ["add1", "conv2"]
    conv1 = graph.get_layer("conv1")
    assert conv1.producers == (None,)
    assert conv1.inputs == ("x",)
    assert graph.get_layer("fc").consumers == ()


def test_weights_and_defaults(graph):
    conv = graph.get_layer("conv2")
    assert conv.weight == "w2"
    assert conv.weight_shape == (8, 8, 3, 3)
    assert conv.weight_channel_axis == 0
    assert conv.quantize_input_by_default and conv.quantize_weight_by_default
    assert conv.op_name == "quant_qdq.conv2d"
    pool = graph.get_layer("pool1")
    assert pool.weight is None and pool.pass_through
    assert not pool.quantize_input_by_default
    assert pool.input_shapes == ((1, 8, 8, 8),)
    assert pool.output_shapes == ((1, 8, 4, 4),)
    assert "conv2" in conv.location


def test_read_only(graph):
    layer = graph.get_layer("conv1")
    with pytest.raises(AttributeError):
        layer.name = "other"
    with pytest.raises(AttributeError):
        graph.layers = ()
    assert isinstance(graph.layers, tuple)


def test_get_layer_missing(graph):
    with pytest.raises(ValueError, match="no layer named 'nope'"):
        graph.get_layer("nope")


def test_layers_of_class(graph):
    assert [layer.name for layer in graph.layers_of_class("Conv2D")] == [
        "conv1", "conv2", "conv3"]


def test_qdq_is_looked_through(block_model):
    module = quant_qdq.import_onnx(block_model)

    def edges():
        return [(layer.name, [p and p.name for p in layer.producers],
                 [c.name for c in layer.consumers])
                for layer in Graph(module)]

    before = edges()
    insert_qdq(module, custom_qdq_cases=[quant_qdq.ResNetV1QDQCase()])
    assert "quant_qdq.quantize" in str(module)
    assert edges() == before


def test_placement_is_in_the_graph(block_model):
    """What insert-qdq decided, read from the graph: the inputs and weights
    each layer reads through a pair, the report's columns."""
    module = quant_qdq.import_onnx(block_model)
    assert not any(layer.quantized_inputs or layer.weight_quantized
                   for layer in Graph(module))
    report = parse_report(insert_qdq(
        module, custom_qdq_cases=[quant_qdq.ResNetV1QDQCase()],
        propagate=False))
    placed = {layer.name: (list(layer.quantized_inputs),
                           layer.weight_quantized)
              for layer in Graph(module)}
    assert placed == {name: (inputs, weight)
                      for name, (inputs, weight, _) in report.items()}
    assert placed["conv1"] == ([0], True)
    assert placed["add1"] == ([1], False)  # ResNet-v1: the residual input
