"""Lower-level access: parse/print, pipelines, import/export, errors."""

import numpy as np
import onnx
import pytest

import quant_qdq
from quant_qdq import QuantQDQError, parse_module, run_pipeline
from qdq_helpers import op_counts

TIMES_ONE = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c1 = arith.constant dense<1.0> : tensor<4xf32>
  %y = arith.mulf %x, %c1 : tensor<4xf32>
  return %y : tensor<4xf32>
}
"""

LAYERS = """
func.func @main(%x: tensor<1x8xf32>, %y: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %a = quant_qdq.add "add" %x, %y
      : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return %a : tensor<1x8xf32>
}
"""


def test_parse_print_round_trip():
    module = parse_module(LAYERS)
    text = str(module)
    assert 'quant_qdq.add "add"' in text
    assert str(parse_module(text)) == text


def test_bytecode_round_trip():
    module = parse_module(LAYERS)
    data = module.to_bytecode()
    assert data[:4] == b"ML\xefR"
    assert str(parse_module(data)) == str(module)


def test_parse_error_carries_diagnostics():
    with pytest.raises(QuantQDQError) as info:
        parse_module("func.func @f( {", name="broken.mlir")
    message = str(info.value)
    assert message.startswith("broken.mlir:1:")
    assert "error:" in message
    assert info.value.diagnostics
    assert "broken.mlir" in info.value.diagnostics[0]


def test_verifier_error_is_an_exception():
    bad = LAYERS.replace("-> tensor<1x8xf32>\n  return", "-> tensor<1x9xf32>\n"
                         "  return")
    with pytest.raises(QuantQDQError):
        parse_module(bad)


def test_run_pipeline_anchored_and_bare():
    module = parse_module(TIMES_ONE)
    run_pipeline(module, "builtin.module(canonicalize)")
    assert "arith.mulf" not in str(module)
    module = parse_module(TIMES_ONE)
    assert run_pipeline(module, "canonicalize,cse") is module
    assert "arith.mulf" not in str(module)


def test_run_insert_qdq_pipeline():
    module = parse_module(LAYERS)
    run_pipeline(module, "insert-qdq{cases=resnet-v1}")
    # No convolution feeds the Add: the residual rule quantizes both.
    assert str(module).count("quant_qdq.quantize") == 2


def test_invalid_pipeline():
    module = parse_module(LAYERS)
    with pytest.raises(QuantQDQError, match="no-such-pass"):
        run_pipeline(module, "no-such-pass")
    # The module is left as it was.
    assert "quant_qdq.quantize" not in str(module)


def test_failing_pass_raises_with_its_message():
    module = parse_module(LAYERS)
    with pytest.raises(QuantQDQError, match="mode must be 'full' or "
                                            "'partial'"):
        run_pipeline(module, "insert-qdq{mode=most}")


def test_import_garbage():
    with pytest.raises(QuantQDQError, match="not an ONNX model"):
        quant_qdq.import_onnx(b"\x08\x01\x12garbage")
    with pytest.raises(QuantQDQError, match="the file is empty"):
        quant_qdq.import_onnx(b"")
    with pytest.raises(TypeError):
        quant_qdq.import_onnx(3.5)


def test_import_export(block_model):
    module = quant_qdq.import_onnx(block_model)
    assert "quant_qdq.conv2d" in str(module)
    exported = quant_qdq.export_onnx(module)
    onnx.checker.check_model(exported, full_check=True)
    assert op_counts(exported) == op_counts(block_model)


def _external_tensors(model):
    """Names of the initializers of `model` (a ModelProto, or a path read
    without its data) kept in external data."""
    if isinstance(model, str):
        model = onnx.load(model, load_external_data=False)
    return [t.name for t in model.graph.initializer
            if t.data_location == onnx.TensorProto.EXTERNAL]


def test_external_data_round_trip(tmp_path, block_model):
    """A model that keeps its tensors in a data file imports from its own
    folder, and writes its output the same way (auto)."""
    source = tmp_path / "in" / "block.onnx"
    source.parent.mkdir()
    onnx.save_model(block_model, str(source), save_as_external_data=True,
                    location="block.weights", size_threshold=0)
    module = quant_qdq.load_module(str(source))
    quant_qdq.insert_qdq(module, custom_qdq_cases=["resnet-v1"])
    out = tmp_path / "out" / "block.qdq.onnx"
    out.parent.mkdir()
    # Float weights: the int8 ones of this small model are under 1 KiB.
    assert quant_qdq.save_onnx(module, out, integer_weights=False) == str(out)
    assert _external_tensors(str(out)) == ["w2", "w3"]
    assert (tmp_path / "out" / "block.qdq.onnx.data").exists()
    onnx.checker.check_model(str(out), full_check=True)
    inline = quant_qdq.export_onnx(module, integer_weights=False)
    assert not _external_tensors(inline)
    assert op_counts(onnx.load(str(out))) == op_counts(inline)

    # The same through quantize_model, and `never`.
    never = tmp_path / "out" / "never.onnx"
    assert quant_qdq.quantize_model(
        str(source), output=str(never), external_data="never") == str(never)
    assert not _external_tensors(str(never))
    assert not (tmp_path / "out" / "never.onnx.data").exists()
    with pytest.raises(ValueError, match="external_data must be one of"):
        quant_qdq.save_onnx(module, out, external_data="yes")


def test_external_data_outside_the_folder(tmp_path, block_model):
    source = tmp_path / "in" / "block.onnx"
    source.parent.mkdir()
    onnx.save_model(block_model, str(source), save_as_external_data=True,
                    location="block.weights", size_threshold=0)
    model = onnx.load(str(source), load_external_data=False)
    for t in model.graph.initializer:
        for entry in t.external_data:
            if entry.key == "location":
                entry.value = "../block.weights"
    onnx.save(model, str(source))
    with pytest.raises(QuantQDQError, match="leaves the model's folder"):
        quant_qdq.import_onnx(str(source))


def _rms_norm(opset):
    """RMSNorm written out, its ReduceMean's axes an attribute (before
    opset 18) or an input."""
    from onnx import TensorProto, helper, numpy_helper
    axes = numpy_helper.from_array(np.array([-1], np.int64), "axes")
    mean = (helper.make_node("ReduceMean", ["sq"], ["ms"], axes=[-1])
            if opset < 18 else
            helper.make_node("ReduceMean", ["sq", "axes"], ["ms"]))
    nodes = [helper.make_node("Mul", ["x", "x"], ["sq"]), mean,
             helper.make_node("Sqrt", ["ms"], ["rms"]),
             helper.make_node("Div", ["x", "rms"], ["y"])]
    graph = helper.make_graph(
        nodes, "rms", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                     [2, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])],
        [axes] if opset >= 18 else [])
    return helper.make_model(graph, ir_version=8,
                             opset_imports=[helper.make_opsetid("", opset)])


def test_export_opset():
    """Export writes the opset asked for, converting the nodes kept from
    the model (ReduceMean's axes move between attribute and input)."""
    module = quant_qdq.import_onnx(_rms_norm(17))
    up = quant_qdq.export_onnx(module, opset=18)
    onnx.checker.check_model(up, full_check=True)
    assert up.opset_import[0].version == 18
    mean = next(n for n in up.graph.node if n.op_type == "ReduceMean")
    assert len(mean.input) == 2 and not mean.attribute
    down = quant_qdq.export_onnx(quant_qdq.import_onnx(_rms_norm(18)),
                                 opset=17)
    onnx.checker.check_model(down, full_check=True)
    mean = next(n for n in down.graph.node if n.op_type == "ReduceMean")
    assert len(mean.input) == 1 and mean.attribute[0].name == "axes"
    with pytest.raises(QuantQDQError, match="opset 5 is outside the 7 to"):
        quant_qdq.export_onnx(module, opset=5)


def test_export_error():
    module = parse_module(TIMES_ONE)
    with pytest.raises(QuantQDQError, match="error"):
        quant_qdq.export_onnx(module)


def test_load_mlir_file(tmp_path, block_model):
    path = tmp_path / "block.mlir"
    path.write_text(str(quant_qdq.import_onnx(block_model)))
    module = quant_qdq.load_module(str(path))
    assert "quant_qdq.conv2d" in str(module)


def test_clone_is_independent():
    module = parse_module(LAYERS)
    copy = module.clone()
    run_pipeline(copy, "insert-qdq{cases=residual}")
    assert "quant_qdq.quantize" in str(copy)
    assert "quant_qdq.quantize" not in str(module)


def test_print_options(block_model):
    module = quant_qdq.import_onnx(block_model)
    short = module.print(large_elements_limit=4)
    assert len(short) < len(str(module))
    assert "loc(" in module.print(debug_info=True)
    assert '"quant_qdq.conv2d"' in module.print(generic=True)


def test_modules_outlive_each_other():
    # Each module owns its context; dropping one never touches another.
    modules = [parse_module(LAYERS) for _ in range(3)]
    del modules[0]
    copy = modules[0].clone()
    del modules
    assert 'quant_qdq.add "add"' in str(copy)


def test_parse_module_with_resources():
    """Weights given beside the text, as the Keras import gives them: one
    copy into the module; every key used, every size right."""
    from quant_qdq import _quant_qdq
    text = ("func.func @f() -> tensor<2x3xf32> {\n"
            "  %w = arith.constant dense_resource<w> : tensor<2x3xf32>\n"
            "  return %w : tensor<2x3xf32>\n}")
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    # The printed blob: its alignment (4 bytes), then the data.
    blob = w.tobytes().hex().upper() + '"'
    module = _quant_qdq.parse_module(text, "weights.mlir", {"w": w})
    w[0, 0] = 100  # the module holds its own copy
    assert blob in str(module)
    with pytest.raises(QuantQDQError, match="resource 'v' is not used"):
        _quant_qdq.parse_module(text, "weights.mlir", {"w": w, "v": w})
    with pytest.raises(QuantQDQError, match="holds 8 bytes.*needs 24"):
        _quant_qdq.parse_module(text, "weights.mlir",
                                {"w": np.zeros(2, np.float32)})
    with pytest.raises(ValueError, match="not a contiguous array"):
        _quant_qdq.parse_module(text, "weights.mlir", {"w": w.T})
