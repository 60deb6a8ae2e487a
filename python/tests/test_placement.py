"""placement.py: where quantization-aware training fakes quantization,
handed from C++ as data (the layer graph after insertion)."""

import quant_qdq
from qdq_helpers import resnet_block_model
from quant_qdq.placement import qat_placement


def test_qat_placement_of_the_resnet_block():
    module = quant_qdq.import_onnx(resnet_block_model())
    placement = qat_placement(module, "full", None,
                              [quant_qdq.ResNetV1QDQCase()], 8, 8)
    assert placement == {
        "conv1": ([0], True), "conv2": ([0], True), "conv3": ([0], True),
        "add1": ([1], False), "gap": ([0], False), "fc": ([0], True)}


def test_layer_names_with_spaces():
    """Names are data, not columns of the report's text (which a space in
    a name would shift)."""
    model = resnet_block_model()
    for node in model.graph.node:
        node.name = node.name.replace("conv", "conv block ").replace(
            "add", "residual add ")
    module = quant_qdq.import_onnx(model)
    placement = qat_placement(module, "full", None,
                              [quant_qdq.ResNetV1QDQCase()], 8, 8)
    assert placement == {
        "conv block 1": ([0], True), "conv block 2": ([0], True),
        "conv block 3": ([0], True), "residual add 1": ([1], False),
        "gap": ([0], False), "fc": ([0], True)}
