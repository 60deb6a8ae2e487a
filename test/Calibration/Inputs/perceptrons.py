"""What the weight-rewriting passes' test models share: the two-layer
perceptron they rewrite, and ONNX Runtime as the judge of held-out
outputs."""
import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper


def save_mlp(path, w1, w2, weight_names=("w1", "w2")):
    """x[n, K] -> MatMul fc1 by w1 -> Relu -> MatMul fc2 by w2, opset 17;
    one weight name for both layers shares one initializer."""
    nodes = [helper.make_node("MatMul", ["x", weight_names[0]], ["h"],
                              name="fc1"),
             helper.make_node("Relu", ["h"], ["r"], name="relu"),
             helper.make_node("MatMul", ["r", weight_names[1]], ["y"],
                              name="fc2")]
    weights = dict(zip(weight_names, (w1, w2)))
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["n", w1.shape[0]])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["n", w2.shape[1]])],
        [numpy_helper.from_array(w, name) for name, w in weights.items()])
    onnx.save(helper.make_model(graph, ir_version=8,
                                opset_imports=[helper.make_opsetid("", 17)]),
              path)


def run(path, x):
    """The model's first output on x, graph rewrites off (Q/DQ computed as
    written)."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def sqnr(reference, got):
    return 10 * np.log10(np.sum(reference.astype(np.float64) ** 2)
                         / np.sum((reference - got).astype(np.float64) ** 2))
