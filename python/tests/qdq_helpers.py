"""Models and helpers that the quant_qdq tests share."""

import collections
import os
import re

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# Ops that TensorRT runs on INT8 data when their input is quantized.
PASS_THROUGH = {"MaxPool", "Reshape", "Flatten", "Transpose", "Pad",
                "Identity", "Dropout"}


def _tensor(name, array):
    t = numpy_helper.from_array(np.asarray(array, dtype=np.float32))
    t.name = name
    return t


def resnet_block_model():
    """A ResNet-v1 style network, the seed's figures in small:

        x -> conv1 -> relu1 -> pool1 -+-> conv2 -> relu2 -> conv3 -> add1
                                      +---------------------------->/
        add1 -> relu3 -> gap -> flatten -> fc
    """
    rng = np.random.default_rng(0)

    def w(*shape):
        return rng.standard_normal(shape).astype(np.float32) * 0.3

    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("Conv", ["r2", "w3", "b3"], ["c3"], name="conv3",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c3", "p1"], ["a"], name="add1"),
        helper.make_node("Relu", ["a"], ["r3"], name="relu3"),
        helper.make_node("GlobalAveragePool", ["r3"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fcw", "fcb"], ["y"], name="fc",
                         transB=1),
    ]
    inits = [_tensor("w1", w(8, 3, 3, 3)), _tensor("b1", w(8)),
             _tensor("w2", w(8, 8, 3, 3)), _tensor("b2", w(8)),
             _tensor("w3", w(8, 8, 3, 3)), _tensor("b3", w(8)),
             _tensor("fcw", w(4, 8)), _tensor("fcb", w(4))]
    graph = helper.make_graph(
        nodes, "resnet_block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def quantized_inputs(model):
    """{node name: [whether each input is quantized]} for the non-Q/DQ
    nodes: an input is quantized when it comes from a DequantizeLinear,
    possibly through pass-through ops (TensorRT runs those in INT8)."""
    producer = {o: n for n in model.graph.node for o in n.output}

    def quantized(name):
        node = producer.get(name)
        while node is not None and node.op_type in PASS_THROUGH:
            node = producer.get(node.input[0])
        return node is not None and node.op_type == "DequantizeLinear"

    return {n.name: [quantized(i) for i in n.input]
            for n in model.graph.node
            if n.op_type not in ("QuantizeLinear", "DequantizeLinear")}


def op_counts(model):
    return collections.Counter(n.op_type for n in model.graph.node)


def parse_report(text):
    """{layer: (inputs, weight, rule)} from insert-qdq's report."""
    rows = {}
    for line in text.splitlines()[1:]:
        if line.startswith("#"):  # the totals
            continue
        name, cls, inputs, weight, rule = line.split(None, 4)
        positions = [int(i) for i in inputs.strip("[]").split(",") if i]
        rows[name] = (positions, weight == "yes", rule)
    return rows


def initializers(model):
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


def guide_blocks(path):
    """The ```python blocks of a Markdown guide, in order."""
    with open(path) as f:
        return re.findall(r"^```python\n(.*?)^```$", f.read(), re.S | re.M)


def run_guide(path, namespace=None):
    """Runs every ```python block of the guide at `path`, in order, in one
    namespace (as a reader would type them; `namespace`, when given, is
    that namespace and holds what the guide defined afterwards); a failing
    block fails the test with its number and text. Returns the number of
    blocks."""
    import pytest
    blocks = guide_blocks(path)
    if namespace is None:
        namespace = {}
    namespace["__name__"] = "__guide__"
    for i, block in enumerate(blocks):
        try:
            exec(compile(block, "%s[block %d]" % (path, i), "exec"),
                 namespace)
        except Exception as error:
            pytest.fail("%s block %d failed: %r\n%s"
                        % (os.path.relpath(path, REPO_ROOT), i, error, block))
    return len(blocks)


def run_onnx(model, x):
    """The first output of `model` (an onnx.ModelProto) on `x`, by ONNX
    Runtime with its graph rewrites off (the model's own numbers)."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = \
        ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: x})[0]


def tensor_values(model, names, batches):
    """{name: the values of tensor `name` over the samples of `batches`,
    run one at a time by ONNX Runtime}: what calibration observes,
    computed without it. `names` are the exported model's: a graph input's
    own, `<node>_output_<i>` for output i of the float `model`'s node."""
    import onnxruntime as ort
    inferred = onnx.shape_inference.infer_shapes(model)
    known = {v.name: v for v in list(inferred.graph.value_info) +
             list(inferred.graph.input) + list(inferred.graph.output)}
    outputs = {"%s_output_%d" % (node.name, i): output
               for node in model.graph.node
               for i, output in enumerate(node.output)}
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    del probe.graph.output[:]
    probe.graph.output.extend(known[outputs.get(name, name)]
                              for name in names)
    session = ort.InferenceSession(probe.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    feed = session.get_inputs()[0].name
    runs = [session.run(None, {feed: sample[None]}) for sample in batches]
    return {name: np.stack([run[i] for run in runs])
            for i, name in enumerate(names)}


def calibration_reference():
    """The NumPy statements of the calibration methods that the lit tests
    check the calibrator against (test/Calibration/Inputs)."""
    import importlib.util
    path = os.path.join(REPO_ROOT, "test", "Calibration", "Inputs",
                        "calibration_reference.py")
    spec = importlib.util.spec_from_file_location("calibration_reference",
                                                  path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
