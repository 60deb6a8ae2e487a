"""QuantizationSpec: the toolkit's add() semantics and the JSON format."""

import json

import pytest

from quant_qdq import (LayerConfig, QuantizationSpec,
                       check_is_quantizable_by_layer_name)


def test_add_single_name():
    spec = QuantizationSpec()
    spec.add(name="Add", is_keras_class=True)
    assert spec.layers == [LayerConfig(name="Add", is_keras_class=True)]


def test_add_lists_one_value_per_name():
    spec = QuantizationSpec()
    spec.add(name=["conv1", "add_1", "pool"], quantize_weight=[False, True,
                                                               True],
             quantization_index=[None, [0], None], quantize_input=True)
    assert [(layer.name, layer.quantize_input, layer.quantize_weight,
             layer.quantization_index) for layer in spec.layers] == [
        ("conv1", True, False, None), ("add_1", True, True, [0]),
        ("pool", True, True, None)]


def test_scalar_index_with_one_name():
    spec = QuantizationSpec()
    spec.add("add_3", quantization_index=[1, 0])
    assert spec.layers[0].quantization_index == [1, 0]


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(name=["a", "b"], quantize_weight=[True]), ValueError,
     "quantize_weight"),
    (dict(name=["a", "b"], quantization_index=[[0]]), ValueError,
     "quantization_index"),
    (dict(name="a", is_keras_class="yes"), TypeError, "is_keras_class"),
    (dict(name="a", quantization_index=[-1]), TypeError,
     "quantization_index"),
    (dict(name="a", quantization_index=[True]), TypeError,
     "quantization_index"),
    (dict(name=3), TypeError, "name"),
    (dict(name=""), TypeError, "name"),
    (dict(name="a", match="regex"), ValueError, "match"),
    (dict(name="a", quantizer={"bitz": 8}), ValueError, "bitz"),
    (dict(name="a", weight_quantizer={"per_channel": 1}), TypeError,
     "per_channel"),
    (dict(name="a", quantizer={"format": "int3"}), ValueError, "format"),
    (dict(name="a", input_quantizer={"block_size": 32}), ValueError,
     "block_size applies to weight"),
    (dict(name="a", weight_quantizer={"block_size": -1}), ValueError,
     "block_size"),
    (dict(name="a", weight_quantizer={"block_size": 1.5}), TypeError,
     "block_size"),
])
def test_add_rejects(kwargs, error, message):
    with pytest.raises(error, match=message):
        QuantizationSpec().add(**kwargs)


def test_json_is_the_qdq_spec_format():
    spec = QuantizationSpec()
    spec.add("Add", is_keras_class=True)
    spec.add("add_3", quantization_index=[1])
    spec.add("block4", match="substring", quantizer={"bits": 8},
             weight_quantizer={"per_channel": False})
    assert json.loads(spec.to_json()) == {"layers": [
        {"name": "Add", "is_keras_class": True, "quantize_input": True,
         "quantize_weight": True},
        {"name": "add_3", "is_keras_class": False, "quantize_input": True,
         "quantize_weight": True, "quantization_index": [1]},
        {"name": "block4", "is_keras_class": False, "quantize_input": True,
         "quantize_weight": True, "match": "substring",
         "quantizer": {"bits": 8},
         "weight_quantizer": {"per_channel": False}}]}


def test_json_round_trip(tmp_path):
    spec = QuantizationSpec()
    spec.add(["conv1", "add"], quantize_weight=[False, True],
             quantization_index=[None, [1]])
    spec.add("Conv2D", is_keras_class=True, input_quantizer={"bits": 6})
    path = tmp_path / "spec.json"
    spec.save(str(path))
    assert QuantizationSpec.load(str(path)).layers == spec.layers
    # The list form of the format reads too.
    listed = json.dumps([layer.to_dict() for layer in spec.layers])
    assert QuantizationSpec.from_json(listed).layers == spec.layers


def test_from_json_rejects_entries_without_name():
    with pytest.raises(ValueError, match="without a name"):
        QuantizationSpec.from_json('[{"quantize_input": false}]')


def test_check_is_quantizable_by_layer_name():
    spec = QuantizationSpec()
    spec.add("pool1", quantize_input=False)
    assert not check_is_quantizable_by_layer_name(spec, "pool1")
    assert check_is_quantizable_by_layer_name(spec, "pool2")
    assert check_is_quantizable_by_layer_name(None, "pool1")


def test_str_lists_layers():
    spec = QuantizationSpec()
    spec.add(["a", "b"])
    assert len(spec) == 2
    assert str(spec).count("LayerConfig") == 2
