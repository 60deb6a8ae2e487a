#!/usr/bin/env python3
"""Writes one small ONNX model (or one malformed file) for the lit tests.

    make_model.py NAME OUTPUT

Models are built with onnx.helper so that each test states, next to its
CHECK lines, what the importer is given. Malformed files are written as raw
bytes: the point is that no ONNX tool would produce them.
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT


def tensor(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def model(nodes, inputs, outputs, initializers=(), opset=13, **kwargs):
    graph = helper.make_graph(nodes, "test_graph", inputs, outputs,
                              list(initializers))
    opsets = [helper.make_opsetid("", opset)] + kwargs.pop("extra_opsets", [])
    m = helper.make_model(graph, opset_imports=opsets,
                          producer_name="make_model.py", **kwargs)
    m.ir_version = 8
    return m


def value(name, shape, elem=FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


rng = np.random.default_rng(7)


def weights(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def conv_block():
    """Conv (explicit and SAME_UPPER pads, grouped), pooling, Gemm."""
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1",
                         pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], name="dw",
                         group=8, auto_pad="SAME_UPPER", strides=[2, 2],
                         kernel_shape=[3, 3]),
        helper.make_node("AveragePool", ["c2"], ["a2"], name="avg",
                         kernel_shape=[2, 2], ceil_mode=1,
                         count_include_pad=1, pads=[0, 0, 1, 1]),
        helper.make_node("GlobalAveragePool", ["a2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], name="fc",
                         transB=1),
        helper.make_node("Softmax", ["y"], ["prob"], name="softmax"),
    ]
    inits = [tensor("w1", weights(8, 3, 3, 3)), tensor("b1", weights(8)),
             tensor("w2", weights(8, 1, 3, 3)),
             tensor("fc_w", weights(10, 8)), tensor("fc_b", weights(10))]
    return model(nodes, [value("x", [1, 3, 16, 16])],
                 [value("prob", [1, 10])], inits)


def activations():
    """Clip as relu6 and as clip, gated activations, parameterized ones."""
    zero, six, lo, hi = (tensor(n, np.float32(v)) for n, v in
                         [("zero", 0), ("six", 6), ("lo", -1), ("hi", 1)])
    nodes = [
        helper.make_node("Clip", ["x", "zero", "six"], ["a"], name="relu6"),
        helper.make_node("Clip", ["a", "lo", "hi"], ["b"], name="clip"),
        helper.make_node("Sigmoid", ["b"], ["s"], name="sig"),
        helper.make_node("Mul", ["b", "s"], ["c"], name="swish"),
        helper.make_node("HardSigmoid", ["c"], ["h"], name="hsig",
                         alpha=1.0 / 6, beta=0.5),
        helper.make_node("Mul", ["h", "c"], ["d"], name="hswish"),
        helper.make_node("LeakyRelu", ["d"], ["e"], name="leaky", alpha=0.2),
        helper.make_node("Elu", ["e"], ["f"], name="elu"),
        helper.make_node("Tanh", ["f"], ["g"], name="tanh"),
        helper.make_node("Sigmoid", ["g"], ["gate"], name="gate"),
        # The gate is read twice: not a swish.
        helper.make_node("Mul", ["g", "gate"], ["m"], name="mul"),
        helper.make_node("Add", ["m", "gate"], ["y"], name="add"),
    ]
    return model(nodes, [value("x", [1, 4])], [value("y", [1, 4])],
                 [zero, six, lo, hi])


def gelu_forms():
    """GELU as torch writes it (x / sqrt 2, (x * gate) * 0.5), as other
    exporters do (x * 1/sqrt 2, (x * 0.5) * gate), and two formulas that
    are not GELU: another constant, and an erf read twice."""
    def gelu(x, out, prefix, divide, half_first, root=np.sqrt(2.0)):
        c = lambda n, v: tensor(f"{prefix}_{n}", np.float32(v))
        inits = [c("one", 1.0), c("half", 0.5),
                 c("k", root if divide else 1 / root)]
        nodes = [
            helper.make_node("Div" if divide else "Mul", [x, f"{prefix}_k"],
                             [f"{prefix}_s"], name=f"{prefix}_scale"),
            helper.make_node("Erf", [f"{prefix}_s"], [f"{prefix}_e"],
                             name=f"{prefix}_erf"),
            helper.make_node("Add", [f"{prefix}_one", f"{prefix}_e"],
                             [f"{prefix}_g"], name=f"{prefix}_gate"),
        ]
        if half_first:
            nodes += [helper.make_node("Mul", [x, f"{prefix}_half"],
                                       [f"{prefix}_h"], name=f"{prefix}_half"),
                      helper.make_node("Mul", [f"{prefix}_h", f"{prefix}_g"],
                                       [out], name=prefix)]
        else:
            nodes += [helper.make_node("Mul", [x, f"{prefix}_g"],
                                       [f"{prefix}_p"], name=f"{prefix}_prod"),
                      helper.make_node("Mul", [f"{prefix}_p", f"{prefix}_half"],
                                       [out], name=prefix)]
        return nodes, inits

    nodes, inits = [], []
    for args in [("x", "a", "gelu_torch", True, False),
                 ("a", "b", "gelu_other", False, True),
                 ("b", "c", "not_gelu", True, False, 1.5)]:
        n, i = gelu(*args)
        nodes += n
        inits += i
    # An erf whose result has a second reader.
    n, i = gelu("c", "d", "shared", True, False)
    nodes += n + [helper.make_node("Add", ["d", "shared_e"], ["y"],
                                   name="reads_erf")]
    inits += i
    return model(nodes, [value("x", [2, 8])], [value("y", [2, 8])], inits)


def gelu_tanh_forms():
    """GELU's tanh approximation as torch writes it (x^3 as x * (x * x),
    the constants first), as Hugging Face's NewGELU does (Pow(x, 3),
    0.5 * x first), and with another cubic coefficient (not GELU)."""
    def gelu(x, out, prefix, use_pow, half_first, cubic=0.044715):
        c = lambda n, v: tensor(f"{prefix}_{n}", np.float32(v))
        p = lambda n: f"{prefix}_{n}"
        node = lambda op, ins, o: helper.make_node(op, ins, [p(o)],
                                                   name=p(o))
        inits = [c("cubic", cubic), c("scale", np.sqrt(2 / np.pi)),
                 c("one", 1.0), c("half", 0.5)]
        if use_pow:
            inits.append(c("three", 3.0))
            nodes = [node("Pow", [x, p("three")], "cube")]
        else:
            nodes = [node("Mul", [x, x], "square"),
                     node("Mul", [x, p("square")], "cube")]
        nodes += [node("Mul", [p("cubic"), p("cube")], "cubic_term"),
                  node("Add", [x, p("cubic_term")], "inner"),
                  node("Mul", [p("scale"), p("inner")], "argument"),
                  node("Tanh", [p("argument")], "tanh"),
                  node("Add", [p("one"), p("tanh")], "gate")]
        if half_first:
            nodes += [node("Mul", [p("half"), x], "halved"),
                      helper.make_node("Mul", [p("halved"), p("gate")],
                                       [out], name=prefix)]
        else:
            nodes += [node("Mul", [x, p("gate")], "product"),
                      helper.make_node("Mul", [p("half"), p("product")],
                                       [out], name=prefix)]
        return nodes, inits

    nodes, inits = [], []
    for args in [("x", "a", "gelu_torch", False, False),
                 ("a", "b", "gelu_hf", True, True),
                 ("b", "y", "not_gelu", False, False, 0.05)]:
        n, i = gelu(*args)
        nodes += n
        inits += i
    return model(nodes, [value("x", [2, 8])], [value("y", [2, 8])], inits)


def layer_norm_forms(opset=14):
    """Layer normalization written out, as exporters do before opset 17:
    torch's form over the last axis (Pow by 2, Div, then the scale's Mul
    and the bias's Add); a form over the last two axes with the square as
    a product, the division as a product by the Reciprocal and no scale
    or bias; and one whose centered input a third node reads (not a
    layer normalization)."""
    def centered(x, prefix, axes):
        return [helper.make_node("ReduceMean", [x], [f"{prefix}_mean"],
                                 name=f"{prefix}_mean", axes=axes),
                helper.make_node("Sub", [x, f"{prefix}_mean"],
                                 [f"{prefix}_d"], name=f"{prefix}_sub")]

    def deviation(prefix, axes, square):
        if square == "pow":
            sq = helper.make_node("Pow", [f"{prefix}_d", "two"],
                                  [f"{prefix}_sq"], name=f"{prefix}_pow")
        else:
            sq = helper.make_node("Mul", [f"{prefix}_d", f"{prefix}_d"],
                                  [f"{prefix}_sq"], name=f"{prefix}_square")
        return [sq,
                helper.make_node("ReduceMean", [f"{prefix}_sq"],
                                 [f"{prefix}_var"], name=f"{prefix}_var",
                                 axes=axes),
                helper.make_node("Add", [f"{prefix}_var", "eps"],
                                 [f"{prefix}_ve"], name=f"{prefix}_eps"),
                helper.make_node("Sqrt", [f"{prefix}_ve"], [f"{prefix}_sd"],
                                 name=f"{prefix}_sqrt")]

    nodes = centered("x", "ln", [-1]) + deviation("ln", [-1], "pow") + [
        helper.make_node("Div", ["ln_d", "ln_sd"], ["ln_n"], name="ln"),
        helper.make_node("Mul", ["ln_n", "gamma"], ["ln_s"], name="ln_scale"),
        helper.make_node("Add", ["ln_s", "beta"], ["a"], name="ln_bias")]
    nodes += centered("a", "ln2", [1, 2]) + deviation("ln2", [1, 2], "mul")
    nodes += [
        helper.make_node("Reciprocal", ["ln2_sd"], ["ln2_r"],
                         name="ln2_reciprocal"),
        helper.make_node("Mul", ["ln2_d", "ln2_r"], ["b"], name="ln2")]
    nodes += centered("b", "ln3", [-1]) + deviation("ln3", [-1], "pow") + [
        helper.make_node("Div", ["ln3_d", "ln3_sd"], ["ln3_n"], name="ln3"),
        helper.make_node("Add", ["ln3_n", "ln3_d"], ["y"],
                         name="reads_centered")]
    inits = [tensor("two", np.float32(2.0)), tensor("eps", np.float32(1e-5)),
             tensor("gamma", weights(8) + 1.0), tensor("beta", weights(8))]
    return model(nodes, [value("x", [2, 3, 8])], [value("y", [2, 3, 8])],
                 inits, opset=opset)


def layer_norm_17():
    """ONNX's LayerNormalization over the last axis, with and without a
    bias, then GELU at opset 17."""
    nodes = [
        helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["a"],
                         name="ln", axis=-1, epsilon=1e-6),
        helper.make_node("LayerNormalization", ["a", "gamma2"], ["y"],
                         name="ln_scale_only", axis=1)]
    inits = [tensor("gamma", weights(8) + 1.0), tensor("beta", weights(8)),
             tensor("gamma2", weights(3, 8) + 1.0)]
    return model(nodes, [value("x", [2, 3, 8])], [value("y", [2, 3, 8])],
                 inits, opset=17)


def rms_norm_forms(opset=17):
    """RMS normalization written out, as exporters write it before opset
    23: torch.onnx's form of Llama's RMSNorm over the last axis (Pow by 2,
    the Reciprocal of the Sqrt times x, then the weight times that); a form
    over the last two axes with the square as a product, epsilon added on
    the left and the reciprocal as 1 / Sqrt (torch 1.13's rsqrt), without
    a weight; one with a Div, scaled on the right; and one whose mean
    square a third node reads (not an RMS normalization). ReduceMean's axes
    are an attribute before opset 18 and an input from it on; the input is
    also read by a residual Add."""
    inits = []

    def mean_square(x, prefix, axes, square):
        if square == "pow":
            sq = helper.make_node("Pow", [x, "two"], [f"{prefix}_sq"],
                                  name=f"{prefix}_pow")
        else:
            sq = helper.make_node("Mul", [x, x], [f"{prefix}_sq"],
                                  name=f"{prefix}_square")
        if opset < 18:
            mean = helper.make_node("ReduceMean", [f"{prefix}_sq"],
                                    [f"{prefix}_ms"], name=f"{prefix}_mean",
                                    axes=axes, keepdims=1)
        else:
            inits.append(tensor(f"{prefix}_axes", np.array(axes, np.int64)))
            mean = helper.make_node("ReduceMean",
                                    [f"{prefix}_sq", f"{prefix}_axes"],
                                    [f"{prefix}_ms"], name=f"{prefix}_mean",
                                    keepdims=1)
        return [sq, mean]

    def rms(prefix, eps_first=False):
        terms = ["eps", f"{prefix}_ms"] if eps_first else [f"{prefix}_ms",
                                                           "eps"]
        return [helper.make_node("Add", terms, [f"{prefix}_mse"],
                                 name=f"{prefix}_eps"),
                helper.make_node("Sqrt", [f"{prefix}_mse"], [f"{prefix}_rms"],
                                 name=f"{prefix}_sqrt")]

    nodes = mean_square("x", "rms", [-1], "pow") + rms("rms") + [
        helper.make_node("Reciprocal", ["rms_rms"], ["rms_r"],
                         name="rms_reciprocal"),
        helper.make_node("Mul", ["x", "rms_r"], ["rms_n"], name="rms"),
        helper.make_node("Mul", ["gamma", "rms_n"], ["a"], name="rms_scale")]
    nodes += mean_square("a", "rms2", [1, 2], "mul") + rms("rms2", True) + [
        helper.make_node("Div", ["one", "rms2_rms"], ["rms2_r"],
                         name="rms2_rsqrt"),
        helper.make_node("Mul", ["rms2_r", "a"], ["b"], name="rms2")]
    nodes += mean_square("b", "rms3", [-1], "pow") + rms("rms3") + [
        helper.make_node("Div", ["b", "rms3_rms"], ["rms3_n"], name="rms3"),
        helper.make_node("Mul", ["rms3_n", "gamma3"], ["c"],
                         name="rms3_scale")]
    nodes += mean_square("c", "rms4", [-1], "pow") + rms("rms4") + [
        helper.make_node("Div", ["c", "rms4_rms"], ["rms4_n"], name="rms4"),
        helper.make_node("Add", ["rms4_n", "rms4_ms"], ["d"],
                         name="reads_mean_square"),
        helper.make_node("Add", ["d", "x"], ["y"], name="residual")]
    inits += [tensor("two", np.float32(2.0)), tensor("eps", np.float32(1e-6)),
              tensor("one", np.float32(1.0)),
              tensor("gamma", weights(8) + 1.0),
              tensor("gamma3", weights(8) + 1.0)]
    return model(nodes, [value("x", [2, 3, 8])], [value("y", [2, 3, 8])],
                 inits, opset=opset)


def rms_norm_forms_18():
    return rms_norm_forms(18)


def rms_norm_23():
    """ONNX's RMSNormalization (opset 23) over the last axis and over the
    last two."""
    nodes = [
        helper.make_node("RMSNormalization", ["x", "gamma"], ["a"],
                         name="rms", axis=-1, epsilon=1e-6),
        helper.make_node("RMSNormalization", ["a", "gamma2"], ["y"],
                         name="rms_axis1", axis=1)]
    inits = [tensor("gamma", weights(8) + 1.0),
             tensor("gamma2", weights(3, 8) + 1.0)]
    m = model(nodes, [value("x", [2, 3, 8])], [value("y", [2, 3, 8])],
              inits, opset=23)
    m.ir_version = 11
    return m


def attention_23():
    """A causal self-attention block as opset-23 exporters write it: q, k
    and v projections, rotary embeddings on q and k (ONNX's
    RotaryEmbedding, 3-D with a head count), ONNX's Attention with
    grouped-query heads (4 query heads, 2 key/value heads), and the output
    projection. The caches hold cos and sin for the batch's positions."""
    hidden, heads, kv_heads, size, seq = 32, 4, 2, 8, 5
    angles = np.arange(seq)[:, None] / 10000 ** (np.arange(size // 2) / (size // 2))
    nodes = [
        helper.make_node("MatMul", ["x", "wq"], ["q"], name="q_proj"),
        helper.make_node("MatMul", ["x", "wk"], ["k"], name="k_proj"),
        helper.make_node("MatMul", ["x", "wv"], ["v"], name="v_proj"),
        helper.make_node("RotaryEmbedding", ["q", "cos", "sin"], ["q_rot"],
                         name="rope_q", num_heads=heads),
        helper.make_node("RotaryEmbedding", ["k", "cos", "sin"], ["k_rot"],
                         name="rope_k", num_heads=kv_heads),
        helper.make_node("Attention", ["q_rot", "k_rot", "v"], ["a"], name="attn",
                         q_num_heads=heads, kv_num_heads=kv_heads, is_causal=1),
        helper.make_node("MatMul", ["a", "wo"], ["y"], name="o_proj")]
    inits = [tensor("wq", weights(hidden, heads * size) * 0.3),
             tensor("wk", weights(hidden, kv_heads * size) * 0.3),
             tensor("wv", weights(hidden, kv_heads * size) * 0.3),
             tensor("wo", weights(heads * size, hidden) * 0.3),
             tensor("cos", np.broadcast_to(np.cos(angles), (2, seq, size // 2))
                    .astype(np.float32)),
             tensor("sin", np.broadcast_to(np.sin(angles), (2, seq, size // 2))
                    .astype(np.float32))]
    m = model(nodes, [value("x", [2, seq, hidden])], [value("y", [2, seq, hidden])],
              inits, opset=23)
    m.ir_version = 11
    return m


def attention_name_clash():
    """An Attention whose function body names a value
    `Func_attn#0/QKHeadSize` (ONNX 1.23's body for a node "attn" first in
    the graph) beside a graph input of that name: the expansion must pick
    other names."""
    nodes = [
        helper.make_node("Attention", ["q", "k", "v"], ["a"], name="attn",
                         is_causal=1),
        helper.make_node("Add", ["a", "Func_attn#0/QKHeadSize"], ["y"], name="add")]
    shape = [1, 2, 3, 4]
    m = model(nodes, [value("q", shape), value("k", shape), value("v", shape),
                      value("Func_attn#0/QKHeadSize", [1])],
              [value("y", shape)], opset=23)
    m.ir_version = 11
    return m


def matmul_bias():
    """MatMul by a constant + Add of a vector folds into one dense layer;
    MatMul of two activations stays generic."""
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["mm"], name="fc1"),
        helper.make_node("Add", ["mm", "b"], ["h"], name="fc1_bias"),
        helper.make_node("MatMul", ["h", "h_t"], ["y"], name="attn"),
        helper.make_node("Transpose", ["h"], ["h_t"], name="t",
                         perm=[0, 2, 1]),
    ]
    return model(nodes, [value("x", [2, 3, 5])], [value("y", [2, 3, 3])],
                 [tensor("w", weights(5, 4)), tensor("b", weights(4))])


def shape_subgraph():
    """x.view(x.size(0), -1) as exporters write it, and Pad."""
    nodes = [
        helper.make_node("Pad", ["x", "pads", "pad_value"], ["p"], name="pad",
                         mode="constant"),
        helper.make_node("Shape", ["p"], ["shape"], name="shape"),
        helper.make_node("Gather", ["shape", "zero"], ["n"], name="gather",
                         axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"], name="unsq"),
        helper.make_node("Concat", ["n1", "minus_one"], ["target"],
                         name="concat", axis=0),
        helper.make_node("Reshape", ["p", "target"], ["y"], name="reshape"),
    ]
    inits = [tensor("pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64)),
             tensor("pad_value", np.float32(0.5)),
             tensor("zero", np.int64(0)),
             tensor("axes", np.array([0], np.int64)),
             tensor("minus_one", np.array([-1], np.int64))]
    return model(nodes, [value("x", [2, 3, 4, 4])], [value("y", [2, 108])],
                 inits)


def dynamic_shapes():
    """A dynamic batch through computed shapes, as torch exports views and
    chunks: Reshape to (n, 32) and a Slice whose end is computed. The ONNX
    library infers no rank for either; node-by-node refinement does."""
    nodes = [
        helper.make_node("Shape", ["x"], ["xs"], name="shape"),
        helper.make_node("Gather", ["xs", "zero"], ["n"], name="batch",
                         axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"], name="unsq"),
        helper.make_node("Concat", ["n1", "width"], ["target"],
                         name="concat", axis=0),
        helper.make_node("Reshape", ["x", "target"], ["flat"], name="view"),
        helper.make_node("MatMul", ["flat", "w"], ["h"], name="fc"),
        helper.make_node("Shape", ["h"], ["hs"], name="h_shape"),
        helper.make_node("Gather", ["hs", "one"], ["c"], name="channels",
                         axis=0),
        helper.make_node("Div", ["c", "two"], ["half"], name="halve"),
        helper.make_node("Unsqueeze", ["half", "axes"], ["end"],
                         name="unsq_end"),
        helper.make_node("Slice", ["h", "start", "end", "slice_axes"],
                         ["chunk"], name="chunk"),
        helper.make_node("Relu", ["chunk"], ["y"], name="relu"),
    ]
    inits = [tensor("zero", np.int64(0)), tensor("one", np.int64(1)),
             tensor("two", np.int64(2)),
             tensor("axes", np.array([0], np.int64)),
             tensor("width", np.array([32], np.int64)),
             tensor("w", weights(32, 16)),
             tensor("start", np.array([0], np.int64)),
             tensor("slice_axes", np.array([1], np.int64))]
    return model(nodes, [value("x", ["batch", 4, 8])],
                 [value("y", ["batch", None])], inits)


def generic():
    """Ops without a layer op, attributes of every kind, omitted inputs,
    a custom domain, and a subgraph reading an outer tensor."""
    then_graph = helper.make_graph(
        [helper.make_node("Identity", ["outer"], ["then_out"])], "then", [],
        [value("then_out", [1, 4])])
    else_graph = helper.make_graph(
        [helper.make_node("Neg", ["outer"], ["else_out"])], "else", [],
        [value("else_out", [1, 4])])
    nodes = [
        helper.make_node("LpNormalization", ["x"], ["outer"], name="norm",
                         axis=1, p=2),
        helper.make_node("Custom", ["outer"], ["c"], name="custom",
                         domain="com.example", f=0.25, i=-3, s="text",
                         floats=[1.5, -2.0], ints=[1, 2, 3],
                         strings=["a", "b"],
                         t=helper.make_tensor("t", TensorProto.INT32, [2],
                                              [7, 8])),
        helper.make_node("ReduceSum", ["c"], ["cond_f"], name="sum",
                         keepdims=0),
        helper.make_node("Cast", ["cond_f"], ["cond"], name="cast",
                         to=TensorProto.BOOL),
        helper.make_node("If", ["cond"], ["y"], name="branch",
                         then_branch=then_graph, else_branch=else_graph),
        helper.make_node("Resize", ["x", "", "scales"], ["up"], name="resize",
                         mode="nearest"),
    ]
    inits = [tensor("scales", np.array([1, 2], np.float32))]
    return model(nodes, [value("x", [1, 4])],
                 [value("y", [1, 4]), value("up", [1, 8])], inits,
                 extra_opsets=[helper.make_opsetid("com.example", 1)])


def qdq():
    """Existing Q/DQ: per-tensor uint8 activations with a zero point, and a
    per-channel int8 weight stored as an integer initializer."""
    wq = rng.integers(-127, 128, size=(4, 3, 1, 1)).astype(np.int8)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"],
                         name="q"),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"],
                         name="dq"),
        helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["w"],
                         name="wdq", axis=0),
        helper.make_node("Conv", ["xd", "w"], ["y"], name="conv"),
    ]
    inits = [tensor("xs", np.float32(0.05)), tensor("xz", np.uint8(128)),
             tensor("wq", wq),
             tensor("ws", np.array([0.1, 0.2, 0.3, 0.4], np.float32)),
             tensor("wz", np.zeros(4, np.int8))]
    return model(nodes, [value("x", [1, 3, 4, 4])],
                 [value("y", [1, 4, 4, 4])], inits)


def qdq_uint8_weight():
    """A per-channel uint8 weight with zero points, stored as an integer
    initializer: its storage type must survive a round trip."""
    wq = rng.integers(0, 256, size=(2, 3, 1, 1)).astype(np.uint8)
    nodes = [
        helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["w"],
                         name="wdq", axis=0),
        helper.make_node("Conv", ["x", "w"], ["y"], name="conv"),
    ]
    inits = [tensor("wq", wq),
             tensor("ws", np.array([0.1, 0.2], np.float32)),
             tensor("wz", np.array([128, 120], np.uint8))]
    return model(nodes, [value("x", [1, 3, 4, 4])],
                 [value("y", [1, 2, 4, 4])], inits)


def metadata():
    """Dynamic batch, metadata and doc strings."""
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    m = model(nodes, [value("x", ["batch", 3])], [value("y", ["batch", 3])],
              doc_string="a model doc string", model_version=3,
              domain="org.example")
    helper.set_model_props(m, {"author": "tests", "license": "MIT"})
    return m


# ---------------------------------------------------------------------------
# Malformed inputs


def cycle():
    nodes = [helper.make_node("Relu", ["b"], ["a"], name="first"),
             helper.make_node("Relu", ["a"], ["b"], name="second"),
             helper.make_node("Add", ["x", "b"], ["y"], name="out")]
    return model(nodes, [value("x", [2])], [value("y", [2])])


def undefined_input():
    nodes = [helper.make_node("Add", ["x", "nowhere"], ["y"], name="add")]
    return model(nodes, [value("x", [2])], [value("y", [2])])


def duplicate_output():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="one"),
             helper.make_node("Neg", ["x"], ["y"], name="two")]
    return model(nodes, [value("x", [2])], [value("y", [2])])


def bad_initializer_size():
    w = onnx.TensorProto(name="w", data_type=FLOAT, dims=[4, 3, 1, 1])
    w.raw_data = b"\0" * 10
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="conv")]
    return model(nodes, [value("x", [1, 3, 2, 2])],
                 [value("y", [1, 4, 2, 2])], [w])


def huge_dimension():
    # 2^60 floats (2^62 bytes) declared, 4 bytes given: nothing may be
    # allocated from the declared shape.
    w = onnx.TensorProto(name="w", data_type=FLOAT, dims=[1 << 30, 1 << 30])
    w.raw_data = b"\0" * 4
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")]
    return model(nodes, [value("x", [1, 1 << 30])], [value("y", [1, 1 << 30])],
                 [w])


def huge_input_dimension():
    # ONNX's own shape inference of pooling does not terminate on this
    # input: the importer must refuse it first.
    nodes = [helper.make_node("AveragePool", ["x"], ["y"], name="pool",
                              kernel_shape=[2, 2], ceil_mode=1)]
    return model(nodes, [value("x", [1, 3, 16, 1 << 40])],
                 [value("y", [1, 3, 8, 1 << 39])])


def overflowing_dimension():
    w = onnx.TensorProto(name="w", data_type=FLOAT,
                         dims=[1 << 62, 1 << 62, 4])
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    return model(nodes, [value("x", [1])], [value("y", [1])], [w])


def extra_output():
    # ONNX 1.12's Conv shape inference crashed on this node: the schema
    # check must reject it first.
    nodes = [helper.make_node("Conv", ["x", "w"], ["y", "extra"],
                              name="conv")]
    return model(nodes, [value("x", [1, 2, 2, 2])], [value("y", [1, 2, 2, 2])],
                 [tensor("w", weights(2, 2, 1, 1))])


def short_pads():
    # Passes the schema check (pads is a list of ints), but a 2-D Conv needs
    # four pads.
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="conv",
                              pads=[1])]
    return model(nodes, [value("x", [1, 2, 4, 4])], [value("y", None)],
                 [tensor("w", weights(2, 2, 1, 1))])


def zero_stride():
    # Passes the schema check, but ONNX 1.12's shape inference divides by the
    # stride (SIGFPE): the importer survives it and reports the node.
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="conv",
                              strides=[0, 0])]
    return model(nodes, [value("x", [1, 2, 4, 4])], [value("y", None)],
                 [tensor("w", weights(2, 2, 1, 1))])


def generic_attribute(op, attrs, inputs=(), initializers=()):
    """One node the importer keeps generic, with attributes that pass the
    schema check (right types) but not ONNX's inference (wrong values)."""
    nodes = [helper.make_node(op, ["x", *inputs], ["y"], name="node",
                              **attrs)]
    return model(nodes, [value("x", [1, 2, 4, 4])], [value("y", None)],
                 list(initializers))


def reduce_axis():
    return generic_attribute("ReduceMean", {"axes": [5]})


def gather_axis():
    return generic_attribute("Gather", {"axis": -5}, ["i"],
                             [tensor("i", np.array([0], np.int64))])


def transpose_conv_pads():
    return generic_attribute("ConvTranspose", {"pads": [1]}, ["w"],
                             [tensor("w", weights(2, 2, 3, 3))])


def depth_to_space_block():
    return generic_attribute("DepthToSpace", {"blocksize": 0})


def reduce_mean_opset18():
    """Valid at opset 18 (axes became an input), which Debian's ONNX 1.12
    (opsets up to 17) could not check."""
    nodes = [helper.make_node("ReduceMean", ["x", "axes"], ["y"], name="rm")]
    return model(nodes, [value("x", [1, 2, 4, 4])], [value("y", None)],
                 [tensor("axes", np.array([2, 3], np.int64))], opset=18)


def reduce_mean_opset17():
    """ReduceMean over the last axis, its axes an attribute (opset 17; 18
    moved them to an input): a node that import keeps as it is."""
    nodes = [helper.make_node("ReduceMean", ["x"], ["y"], name="rm",
                              axes=[-1], keepdims=1)]
    return model(nodes, [value("x", [2, 3, 8])], [value("y", [2, 3, 1])],
                 opset=17)


def rms_norm_opset17():
    """A decoder block's start as torch.onnx writes it at opset 17: RMSNorm
    written out (ReduceMean's axes an attribute, which opset 18 moved to an
    input), a projection, and SwiGLU's halves from a Split of given sizes."""
    nodes = [
        helper.make_node("Pow", ["x", "two"], ["sq"], name="pow"),
        helper.make_node("ReduceMean", ["sq"], ["ms"], name="mean",
                         axes=[-1], keepdims=1),
        helper.make_node("Add", ["ms", "eps"], ["mse"], name="add_eps"),
        helper.make_node("Sqrt", ["mse"], ["rms"], name="sqrt"),
        helper.make_node("Div", ["x", "rms"], ["xn"], name="div"),
        helper.make_node("Mul", ["xn", "g"], ["xg"], name="gain"),
        helper.make_node("MatMul", ["xg", "w"], ["h"], name="proj"),
        helper.make_node("Split", ["h", "halves"], ["gate", "up"],
                         name="split", axis=-1),
        helper.make_node("Sigmoid", ["gate"], ["sig"], name="sigmoid"),
        helper.make_node("Mul", ["gate", "sig"], ["silu"], name="silu"),
        helper.make_node("Mul", ["silu", "up"], ["y"], name="swiglu"),
    ]
    return model(nodes, [value("x", [1, 4, 64])], [value("y", [1, 4, 32])],
                 [tensor("two", np.float32(2)),
                  tensor("eps", np.float32(1e-5)),
                  tensor("g", weights(64)), tensor("w", weights(64, 64)),
                  tensor("halves", np.array([32, 32], np.int64))], opset=17)


def split_parts_opset18(parts=2, size=6):
    """Split into `parts` outputs by num_outputs (opset 18): even for 2
    parts of 6, uneven (a smaller last part) for 4 parts of 7."""
    outputs = ["y%d" % i for i in range(parts)]
    sizes = [-(-size // parts)] * (parts - 1)
    sizes.append(size - sum(sizes))
    nodes = [helper.make_node("Split", ["x"], outputs, name="split", axis=1,
                              num_outputs=parts)]
    return model(nodes, [value("x", [2, size])],
                 [value(o, [2, n]) for o, n in zip(outputs, sizes)],
                 opset=18)


def split_uneven_opset18():
    return split_parts_opset18(4, 7)


def col2im_opset18():
    """Col2Im, new in opset 18: it has no older form."""
    nodes = [helper.make_node("Col2Im", ["x", "size", "block"], ["y"],
                              name="col2im")]
    return model(nodes, [value("x", [1, 4, 9])], [value("y", [1, 1, 4, 4])],
                 [tensor("size", np.array([4, 4], np.int64)),
                  tensor("block", np.array([2, 2], np.int64))], opset=18)


def missing_attribute():
    nodes = [helper.make_node("MaxPool", ["x"], ["y"], name="pool")]
    return model(nodes, [value("x", [1, 1, 4, 4])], [value("y", [1, 1, 2, 2])])


def wrong_attribute_type():
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="conv",
                              group="two")]
    return model(nodes, [value("x", [1, 2, 2, 2])], [value("y", [1, 2, 2, 2])],
                 [tensor("w", weights(2, 2, 1, 1))])


def duplicate_initializer():
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    return model(nodes, [value("x", [2])], [value("y", [2])],
                 [tensor("w", np.ones(2, np.float32)),
                  tensor("w", np.zeros(2, np.float32))])


def relu_model(**kwargs):
    ir = kwargs.pop("ir", 8)
    m = model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
              [value("x", [2])], [value("y", [2])], **kwargs)
    m.ir_version = ir
    return m


def unlowerable_node():
    """A standard op the engine cannot run, behind a named node."""
    return model([helper.make_node("Relu", ["x"], ["r"], name="relu_1"),
                  helper.make_node("LpNormalization", ["r"], ["y"],
                                   name="norm_7", axis=1)],
                 [value("x", [1, 4])], [value("y", [1, 4])], opset=17)


def declared_rank_mismatch():
    """A Relu whose output the model's value_info declares of rank 3, where
    its input is of rank 2."""
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Neg", ["r"], ["y"], name="neg")]
    m = model(nodes, [value("x", [2, 4])], [value("y", [2, 4])])
    m.graph.value_info.append(value("r", [2, 4, 1]))
    return m


def conv_rank_mismatch():
    """A Conv whose input (rank 3) and weight (rank 4) disagree, behind Q/DQ
    and hidden from whole-model inference: the graph output that names the
    input declares no shape. Refining the Conv's types during import, on
    the input's declared shape, reached an out-of-bounds read in ONNX
    1.12's convolution inference (found by fuzzing)."""
    scale = tensor("s", np.float32(0.05))
    zero = tensor("z", np.int8(0))
    w = tensor("wq", rng.integers(-127, 128, (4, 3, 1, 1)).astype(np.int8))
    ws = tensor("ws", np.full(4, 0.1, np.float32))
    wz = tensor("wz", np.zeros(4, np.int8))
    return model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"],
                                   name="q"),
                  helper.make_node("DequantizeLinear", ["xq", "s", "z"],
                                   ["xd"], name="dq"),
                  helper.make_node("DequantizeLinear", ["wq", "ws", "wz"],
                                   ["w"], name="wdq", axis=0),
                  helper.make_node("Conv", ["xd", "w"], ["y"], name="conv")],
                 [value("x", [1, 3, 4])],
                 [helper.make_tensor_value_info("x", FLOAT, None)],
                 [scale, zero, w, ws, wz])


def ir_version_zero():
    return relu_model(ir=0)


def ir_version_newest():
    return relu_model(ir=onnx.IR_VERSION)


def ir_version_beyond():
    return relu_model(ir=onnx.IR_VERSION + 1)


def opset_beyond():
    """One past the newest opset of the pinned onnx, whose C++ library the
    build links."""
    return relu_model(opset=onnx.defs.onnx_opset_version() + 1)


def opset_huge():
    return relu_model(opset=1 << 62)


def conv_int32_weight():
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="conv")]
    return model(nodes, [value("x", [1, 2, 4, 4])], [value("y", [1, 2, 4, 4])],
                 [tensor("w", np.ones((2, 2, 1, 1), np.int32))])


def gather_float_indices():
    """An embedding lookup whose token ids are floats (a decoder's
    input_ids retyped)."""
    nodes = [helper.make_node("Gather", ["table", "ids"], ["y"],
                              name="embed")]
    return model(nodes, [value("ids", [1, 4])], [value("y", [1, 4, 8])],
                 [tensor("table", weights(16, 8))])


def mul_int32_weight():
    """A Mul whose constant operand is int32 and whose input is float."""
    nodes = [helper.make_node("Mul", ["x", "w"], ["y"], name="scale")]
    return model(nodes, [value("x", [2, 4])], [value("y", [2, 4])],
                 [tensor("w", np.ones((4,), np.int32))])


def qdq_float_zero_point():
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"],
                              name="q"),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"],
                              name="dq")]
    return model(nodes, [value("x", [1, 2])], [value("y", [1, 2])],
                 [tensor("s", np.float32(0.1)), tensor("z", np.float32(0))])


def constant_two_values():
    c = helper.make_node("Constant", [], ["c"], name="c", value_float=1.0)
    c.attribute.append(helper.make_attribute("value_int", 2))
    nodes = [c, helper.make_node("Add", ["x", "c"], ["y"], name="add")]
    return model(nodes, [value("x", [2])], [value("y", [2])])


def loop(body_outputs):
    """A Loop with its condition omitted ("" as its second input), whose body
    yields its condition and a scan output, or only the condition."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c2"]),
         helper.make_node("Cast", ["i"], ["s"], to=FLOAT)], "body",
        [value("i", [], TensorProto.INT64), value("c", [], TensorProto.BOOL)],
        [value("c2", [], TensorProto.BOOL), value("s", [])][:body_outputs])
    nodes = [helper.make_node("Loop", ["n", ""], ["scan"], name="loop",
                              body=body),
             helper.make_node("Add", ["scan", "x"], ["y"], name="add")]
    return model(nodes, [value("x", [3])], [value("y", [3])],
                 [tensor("n", np.array(3, np.int64))])


def loop_omitted_condition():
    return loop(body_outputs=2)


def loop_body_arity():
    return loop(body_outputs=1)


def unsorted_nodes():
    """Valid but for the order of its nodes, which ONNX wants sorted."""
    nodes = [helper.make_node("Neg", ["r"], ["y"], name="neg"),
             helper.make_node("Relu", ["x"], ["r"], name="relu")]
    return model(nodes, [value("x", [2])], [value("y", [2])])


def custom_output_unknown_rank():
    """A graph output of unknown rank (no shape), produced by a custom op
    that no inference knows."""
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("MyOp", ["r"], ["y"], name="custom",
                              domain="com.example")]
    return model(nodes, [value("x", [2])], [value("y", None)],
                 extra_opsets=[helper.make_opsetid("com.example", 1)])


def relu_chain_100k():
    """100 000 Relu nodes in a chain: import, passes and export must stay
    linear (a quadratic step takes minutes here, not seconds)."""
    nodes, prev = [], "x"
    for i in range(100000):
        nodes.append(helper.make_node("Relu", [prev], [f"t{i}"],
                                      name=f"relu{i}"))
        prev = f"t{i}"
    return model(nodes, [value("x", [1, 8])], [value(prev, [1, 8])])


def residual_10k():
    """10 000 layers of Conv -> Relu -> Add (30 000 nodes), where insertion
    has work at every layer."""
    nodes, prev = [], "x"
    for i in range(10000):
        nodes += [helper.make_node("Conv", [prev, "w"], [f"c{i}"],
                                   name=f"conv{i}", pads=[1, 1, 1, 1]),
                  helper.make_node("Relu", [f"c{i}"], [f"r{i}"],
                                   name=f"relu{i}"),
                  helper.make_node("Add", [f"r{i}", prev], [f"a{i}"],
                                   name=f"add{i}")]
        prev = f"a{i}"
    return model(nodes, [value("x", [1, 4, 4, 4])],
                 [value(prev, [1, 4, 4, 4])], [tensor("w", weights(4, 4, 3, 3))])


def no_graph():
    return onnx.ModelProto(ir_version=8)


def valid_bytes():
    return conv_block().SerializeToString()


MODELS = {f.__name__: f for f in [
    conv_block, activations, gelu_forms, gelu_tanh_forms, layer_norm_forms,
    layer_norm_17, rms_norm_forms, rms_norm_forms_18, rms_norm_23,
    matmul_bias, shape_subgraph, dynamic_shapes, generic, qdq,
    qdq_uint8_weight,
    metadata, cycle, undefined_input, duplicate_output, bad_initializer_size,
    huge_dimension, huge_input_dimension, overflowing_dimension, missing_attribute,
    wrong_attribute_type, extra_output, short_pads, zero_stride, no_graph,
    reduce_axis, gather_axis, transpose_conv_pads, depth_to_space_block,
    reduce_mean_opset17, reduce_mean_opset18, rms_norm_opset17,
    col2im_opset18, split_parts_opset18,
    split_uneven_opset18, opset_beyond, duplicate_initializer, ir_version_zero,
    ir_version_newest, ir_version_beyond, opset_huge, conv_int32_weight,
    gather_float_indices, mul_int32_weight,
    qdq_float_zero_point, constant_two_values, loop_omitted_condition,
    loop_body_arity, unsorted_nodes, custom_output_unknown_rank,
    relu_chain_100k, residual_10k, unlowerable_node, attention_23,
    attention_name_clash,
    conv_rank_mismatch, declared_rank_mismatch]}

RAW = {
    "empty": lambda: b"",
    "random_bytes": lambda: np.random.default_rng(1).integers(
        0, 256, 4096, dtype=np.uint8).tobytes(),
    "truncated": lambda: valid_bytes()[: len(valid_bytes()) // 2],
}


def main():
    name, output = sys.argv[1], sys.argv[2]
    if name in RAW:
        data = RAW[name]()
    else:
        data = MODELS[name]().SerializeToString()
    with open(output, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
