#!/usr/bin/env python3
"""Runs one small ONNX model per node type (and per attribute form that
changes the lowering) through qdq-run and ONNX Runtime, compares every
output of the graph, and prints one line per case:

    onnx_nodes.py QDQ_RUN WORKDIR [CASE...]

    <case>: ok <max |diff| / max |ort|>      or      <case>: FAIL <why>

and at the end "all N cases match" or "K of N cases differ". The models
have a dynamic first dimension ("batch") and are run at batch 2, so that
qdq-run has to specialize them (ONNX's type inference, then constant
folding of the shape arithmetic) before lowering. Tolerance: 1e-5 of the
output's largest magnitude (1e-4 for the transcendental functions, whose
libm and ORT's vectorized kernels round differently).
"""
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

F, I64, B = T.FLOAT, T.INT64, T.BOOL
RNG = np.random.RandomState(11)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


class Case:
    def __init__(self, name, nodes, inputs, outputs, inits=(), opset=17,
                 tol=1e-5, data=None):
        self.name, self.nodes, self.inputs = name, nodes, inputs
        self.outputs, self.inits, self.opset, self.tol = outputs, inits, opset, tol
        self.data = data or {}

    def model(self):
        def info(name, elem, shape):
            return h.make_tensor_value_info(name, elem, ["batch"] + list(shape))
        graph = h.make_graph(
            self.nodes, self.name,
            [info(n, e, s) for n, e, s in self.inputs],
            [info(*o) if len(o) == 3 else h.make_tensor_value_info(*o, None)
             for o in self.outputs],
            list(self.inits))
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", self.opset)])
        model.ir_version = max(8, h.find_min_ir_version_for(list(model.opset_import)))
        # The outputs' shapes come from ONNX's inference unless the case
        # gives them; the checker wants them.
        model = onnx.shape_inference.infer_shapes(model, check_type=True,
                                                  strict_mode=True)
        onnx.checker.check_model(model, full_check=True)
        return model

    def arrays(self):
        out = {}
        for name, elem, shape in self.inputs:
            if name in self.data:
                out[name] = self.data[name]
            elif elem == F:
                out[name] = RNG.uniform(-2, 2, (2,) + tuple(shape)).astype(np.float32)
            else:
                out[name] = RNG.randint(-3, 4, (2,) + tuple(shape)).astype(np.int64)
        return out


def unary(op, positive=False, tol=1e-5, **attrs):
    data = {"x": RNG.uniform(0.1, 3, (2, 3, 5)).astype(np.float32)} if positive else None
    return Case(op, [h.make_node(op, ["x"], ["y"], **attrs)], [("x", F, [3, 5])],
                [("y", F)], tol=tol, data=data)


def binary(op, shape_b=(1, 5), elem=F, out=F, data=None):
    return Case(f"{op}-{'float' if elem == F else 'int'}",
                [h.make_node(op, ["a", "b"], ["y"])],
                [("a", elem, [3, 5]), ("b", elem, list(shape_b))], [("y", out)],
                data=data)


def cases():
    c = []
    for op in ["Add", "Sub", "Mul", "Div"]:
        c.append(binary(op))
    nonzero = {"b": np.array([[[3, -2, 5, -4, 7]]] * 2, np.int64)}
    c.append(binary("Div", elem=I64, out=I64, data=nonzero))
    c.append(Case("Mod-int", [h.make_node("Mod", ["a", "b"], ["y"])],
                  [("a", I64, [3, 5]), ("b", I64, [1, 5])], [("y", I64)], data=nonzero))
    c.append(Case("Pow", [h.make_node("Pow", ["x", "e"], ["y"])], [("x", F, [3, 5])],
                  [("y", F)], [const("e", np.float32(2.0))], tol=1e-4))
    for op in ["Exp", "Erf", "Tanh", "Sigmoid", "Sin", "Cos"]:
        c.append(unary(op, tol=1e-4))
    for op in ["Sqrt", "Log", "Reciprocal"]:
        c.append(unary(op, positive=True, tol=1e-4))
    for op in ["Neg", "Abs", "Floor", "Ceil", "Relu", "Identity"]:
        c.append(unary(op))
    c.append(Case("Dropout", [h.make_node("Dropout", ["x"], ["y"])], [("x", F, [4])],
                  [("y", F)]))
    for op in ["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"]:
        c.append(Case(f"{op}-Where", [h.make_node(op, ["a", "b"], ["m"]),
                                      h.make_node("Where", ["m", "a", "b"], ["y"])],
                      [("a", I64, [3, 5]), ("b", I64, [1, 5])], [("y", I64)]))
    c.append(Case("Not-And-Or-Xor", [
        h.make_node("Less", ["a", "b"], ["p"]), h.make_node("Greater", ["a", "c"], ["q"]),
        h.make_node("Not", ["p"], ["np"]), h.make_node("And", ["np", "q"], ["r1"]),
        h.make_node("Or", ["r1", "p"], ["r2"]), h.make_node("Xor", ["r2", "q"], ["y"])],
        [("a", F, [6]), ("b", F, [6]), ("c", F, [6])], [("y", B)]))
    c.append(Case("Cast", [h.make_node("Cast", ["x"], ["i"], to=I64),
                           h.make_node("Cast", ["x"], ["b"], to=B),
                           h.make_node("Cast", ["b"], ["f"], to=F),
                           h.make_node("Cast", ["i"], ["g"], to=F),
                           h.make_node("Add", ["f", "g"], ["y"])],
                  [("x", F, [7])], [("y", F)]))
    # Unsigned integers: raw uint8 pixels to float (an image model's first
    # node), floats out of uint8's range (wrapping as ONNX Runtime does),
    # int64 to uint16 and uint16 back to int64, and CastLike to uint8.
    pixels = {"p": np.array([[[0, 1, 127, 128, 255]]] * 2, np.uint8)}
    c.append(Case("Cast-uint8-to-float", [h.make_node("Cast", ["p"], ["y"], to=F)],
                  [("p", T.UINT8, [1, 5])], [("y", F)], data=pixels))
    wide = {"x": np.array([[-1.5, 0.4, 2.6, 200.7, 300.0, -300.2]] * 2, np.float32)}
    c.append(Case("Cast-float-to-uint8", [h.make_node("Cast", ["x"], ["y"], to=T.UINT8)],
                  [("x", F, [6])], [("y", T.UINT8)], data=wide))
    c.append(Case("Cast-float-to-int8", [h.make_node("Cast", ["x"], ["y"], to=T.INT8)],
                  [("x", F, [6])], [("y", T.INT8)], data=wide))
    ints = {"i": np.array([[-1, 0, 1, 65535, 70000]] * 2, np.int64)}
    c.append(Case("Cast-int64-uint16-int64",
                  [h.make_node("Cast", ["i"], ["u"], to=T.UINT16),
                   h.make_node("Cast", ["u"], ["y"], to=I64)],
                  [("i", I64, [5])], [("y", I64)], data=ints))
    c.append(Case("CastLike-uint8", [h.make_node("CastLike", ["x", "p"], ["y"])],
                  [("x", F, [5]), ("p", T.UINT8, [1, 5])], [("y", T.UINT8)],
                  data={"x": np.array([[3.7, 0.2, 255.9, 17.0, 1.0]] * 2, np.float32),
                        **pixels}, opset=15))
    for op in ["Max", "Min", "Sum", "Mean"]:
        c.append(Case(op, [h.make_node(op, ["a", "b", "c"], ["y"])],
                      [("a", F, [3, 4]), ("b", F, [1, 4]), ("c", F, [3, 1])], [("y", F)]))
    # Data movement.
    c.append(Case("Reshape", [h.make_node("Reshape", ["x", "s"], ["y"])],
                  [("x", F, [3, 4])], [("y", F)], [const("s", np.array([0, -1, 2], np.int64))]))
    c.append(Case("Flatten", [h.make_node("Flatten", ["x"], ["y"], axis=2)],
                  [("x", F, [3, 4, 2])], [("y", F)]))
    c.append(Case("Squeeze-Unsqueeze", [
        h.make_node("Unsqueeze", ["x", "a"], ["u"]),
        h.make_node("Squeeze", ["u", "b"], ["y"])], [("x", F, [3, 1])], [("y", F)],
        [const("a", np.array([0, 3], np.int64)), const("b", np.array([0, 4], np.int64))]))
    c.append(Case("Transpose", [h.make_node("Transpose", ["x"], ["t"], perm=[1, 0, 2]),
                                h.make_node("Transpose", ["t"], ["y"])],
                  [("x", F, [3, 4])], [("y", F)]))
    c.append(Case("Concat", [h.make_node("Concat", ["a", "b", "e"], ["y"], axis=1)],
                  [("a", F, [2, 3]), ("b", F, [1, 3])], [("y", F)],
                  [const("e", np.zeros((2, 0, 3), np.float32))]))
    c.append(Case("Slice", [h.make_node("Slice", ["x", "s", "e", "a", "t"], ["y"])],
                  [("x", F, [10, 6])], [("y", F)],
                  [const("s", np.array([1, -5], np.int64)), const("e", np.array([9, 100], np.int64)),
                   const("a", np.array([1, 2], np.int64)), const("t", np.array([3, 2], np.int64))]))
    c.append(Case("Slice-negative-step", [h.make_node("Slice", ["x", "s", "e", "a", "t"], ["y"])],
                  [("x", F, [10, 6])], [("y", F)],
                  [const("s", np.array([-1, 4], np.int64)),
                   const("e", np.array([-2**63 + 1, 0], np.int64)),
                   const("a", np.array([1, 2], np.int64)), const("t", np.array([-2, -1], np.int64))]))
    c.append(Case("Slice-opset9", [h.make_node("Slice", ["x"], ["y"], starts=[1], ends=[3], axes=[2])],
                  [("x", F, [3, 5])], [("y", F)], opset=9))
    c.append(Case("Gather-axis0", [h.make_node("Gather", ["w", "i"], ["y"])],
                  [("i", I64, [3])], [("y", F)],
                  [const("w", RNG.rand(7, 4).astype(np.float32))],
                  data={"i": np.array([[0, 6, -1], [3, -7, 2]], np.int64)}))
    c.append(Case("Gather-axis2", [h.make_node("Gather", ["x", "i"], ["y"], axis=2)],
                  [("x", F, [3, 5])], [("y", F)], [const("i", np.array([[4, 0], [-1, 2]], np.int64))]))
    c.append(Case("Expand", [h.make_node("Expand", ["x", "s"], ["y"])],
                  [("x", F, [1, 4])], [("y", F)], [const("s", np.array([3, 1], np.int64))]))
    c.append(Case("Shape-ConstantOfShape", [
        h.make_node("Shape", ["x"], ["s"], start=1),
        h.make_node("ConstantOfShape", ["s"], ["c"],
                    value=numpy_helper.from_array(np.array([1.5], np.float32))),
        h.make_node("Add", ["x", "c"], ["y"])], [("x", F, [3, 4])], [("y", F)]))
    c.append(Case("Range-float", [h.make_node("Range", ["a", "l", "d"], ["r"]),
                                  h.make_node("Add", ["x", "r"], ["y"])],
                  [("x", F, [5])], [("y", F)],
                  [const("a", np.float32(0.5)), const("l", np.float32(3.0)),
                   const("d", np.float32(0.5))]))
    c.append(Case("Pad", [h.make_node("Pad", ["x", "p", "v"], ["y"], mode="constant")],
                  [("x", F, [3, 4])], [("y", F)],
                  [const("p", np.array([0, 1, 0, 0, 2, 3], np.int64)), const("v", np.float32(0.25))]))
    c.append(Case("Split", [h.make_node("Split", ["x", "s"], ["a", "b"], axis=2),
                            h.make_node("Concat", ["b", "a"], ["y"], axis=2)],
                  [("x", F, [3, 5])], [("y", F)], [const("s", np.array([2, 3], np.int64))]))
    # A graph may list a tensor, even an input, as several of its outputs:
    # each is an array of its own.
    c.append(Case("Outputs-repeated", [h.make_node("Split", ["x", "s"], ["a", "b"], axis=2),
                                       h.make_node("Relu", ["a"], ["r"])],
                  [("x", F, [3, 5])],
                  [("r", F, [3, 2]), ("b", F, [3, 3]), ("r", F, [3, 2]), ("x", F, [3, 5]),
                   ("r", F, [3, 2])],
                  [const("s", np.array([2, 3], np.int64))]))
    c.append(Case("Tile", [h.make_node("Tile", ["x", "r"], ["y"])],
                  [("x", F, [2, 3])], [("y", F)], [const("r", np.array([1, 3, 2], np.int64))]))
    # Position builders: GatherElements along an axis (indices wrap from
    # the end), CumSum forward and inclusive (a mask's positions), and
    # reversed and exclusive.
    c.append(Case("GatherElements", [h.make_node("GatherElements", ["x", "i"], ["y"], axis=2)],
                  [("x", F, [3, 4])], [("y", F)],
                  [const("i", RNG.randint(-4, 4, (2, 3, 2)).astype(np.int64))]))
    c.append(Case("CumSum-int", [h.make_node("CumSum", ["x", "a"], ["y"])],
                  [("x", I64, [6])], [("y", I64)], [const("a", np.int64(-1))]))
    c.append(Case("CumSum-reverse-exclusive",
                  [h.make_node("CumSum", ["x", "a"], ["y"], exclusive=1, reverse=1)],
                  [("x", F, [5, 3])], [("y", F)], [const("a", np.array([1], np.int64))]))
    # Causal masks: the upper triangle above the diagonal; lower ones, below
    # it and with the main diagonal (k = 0 by default, on integers).
    c.append(Case("Trilu-upper", [h.make_node("Trilu", ["x", "k"], ["y"])],
                  [("x", F, [4, 5])], [("y", F)], [const("k", np.int64(1))]))
    c.append(Case("Trilu-lower", [h.make_node("Trilu", ["x", "k"], ["y"], upper=0)],
                  [("x", F, [4, 5])], [("y", F)], [const("k", np.int64(-1))]))
    c.append(Case("Trilu-lower-int", [h.make_node("Trilu", ["x"], ["y"], upper=0)],
                  [("x", I64, [3, 3])], [("y", I64)]))
    c.append(Case("ScatterND", [h.make_node("ScatterND", ["x", "i", "u"], ["y"])],
                  [("x", F, [4, 3])], [("y", F)],
                  [const("i", np.array([[[1, 2]], [[0, -1]]], np.int64)),
                   const("u", RNG.rand(2, 1, 3).astype(np.float32))]))
    # Reductions.
    # Opset 17: ReduceSum takes its axes as an input, the others as an
    # attribute.
    c.append(Case("ReduceSum", [h.make_node("ReduceSum", ["x", "a"], ["y"], keepdims=0)],
                  [("x", F, [3, 4])], [("y", F)], [const("a", np.array([1, 2], np.int64))]))
    c.append(Case("ReduceSum-noop", [h.make_node("ReduceSum", ["x", "a"], ["y"],
                                                 noop_with_empty_axes=1)],
                  [("x", F, [3, 4])], [("y", F)], [const("a", np.zeros(0, np.int64))]))
    for op, attrs in [("ReduceMean", {"keepdims": 1, "axes": [-1]}), ("ReduceMax", {}),
                      ("ReduceMin", {"keepdims": 0, "axes": [0]}), ("ReduceProd", {"axes": [2]}),
                      ("ReduceSumSquare", {"axes": [1]}), ("ReduceL1", {"axes": [1]}),
                      ("ReduceL2", {"keepdims": 0, "axes": [2]})]:
        c.append(Case(op, [h.make_node(op, ["x"], ["y"], **attrs)], [("x", F, [3, 4])],
                      [("y", F)]))
    # Opset 18: every reduction takes its axes as an input.
    for op, axes, keep in [("ReduceMean", [-1], 1), ("ReduceMax", [1], 0),
                           ("ReduceMin", [0], 0), ("ReduceProd", [2], 1),
                           ("ReduceSumSquare", [1], 1), ("ReduceL1", [1], 0),
                           ("ReduceL2", [2], 0)]:
        c.append(Case(op + "-opset18", [h.make_node(op, ["x", "a"], ["y"], keepdims=keep)],
                      [("x", F, [3, 4])], [("y", F)], [const("a", np.array(axes, np.int64))],
                      opset=18))
    c.append(Case("Softmax", [h.make_node("Softmax", ["x"], ["y"], axis=1)],
                  [("x", F, [3, 4])], [("y", F)], tol=1e-4))
    c.append(Case("Softmax-opset11", [h.make_node("Softmax", ["x"], ["y"], axis=1)],
                  [("x", F, [3, 4])], [("y", F)], opset=11, tol=1e-4))
    c.append(Case("LogSoftmax", [h.make_node("LogSoftmax", ["x"], ["y"])],
                  [("x", F, [3, 4])], [("y", F)], tol=1e-4))
    c.append(Case("LayerNormalization", [h.make_node("LayerNormalization", ["x", "s", "b"], ["y"],
                                                     epsilon=1e-3)],
                  [("x", F, [3, 8])], [("y", F)],
                  [const("s", RNG.rand(8).astype(np.float32)), const("b", RNG.rand(8).astype(np.float32))],
                  tol=1e-4))
    c.append(Case("LayerNormalization-axis1", [h.make_node("LayerNormalization", ["x", "s"], ["y"],
                                                           axis=1)],
                  [("x", F, [3, 8])], [("y", F)], [const("s", RNG.rand(3, 8).astype(np.float32))],
                  tol=1e-4))
    # Contractions.
    c.append(Case("MatMul-3Dx2D", [h.make_node("MatMul", ["x", "w"], ["y"])],
                  [("x", F, [3, 4])], [("y", F)], [const("w", RNG.rand(4, 5).astype(np.float32))]))
    c.append(Case("MatMul-batched-broadcast", [h.make_node("MatMul", ["a", "b"], ["y"])],
                  [("a", F, [1, 3, 4]), ("b", F, [5, 4, 6])], [("y", F)]))
    c.append(Case("MatMul-1D", [h.make_node("MatMul", ["x", "v"], ["y"])],
                  [("x", F, [3, 4])], [("y", F)], [const("v", RNG.rand(4).astype(np.float32))]))
    c.append(Case("MatMul-1Dx3D", [h.make_node("MatMul", ["v", "x"], ["y"])],
                  [("x", F, [4, 3])], [("y", F)], [const("v", RNG.rand(4).astype(np.float32))]))
    c.append(Case("Gemm", [h.make_node("Gemm", ["x", "w", "c"], ["y"], transB=1, alpha=0.5, beta=2.0)],
                  [("x", F, [4])], [("y", F)],
                  [const("w", RNG.rand(3, 4).astype(np.float32)), const("c", RNG.rand(3).astype(np.float32))]))
    c.append(Case("Gemm-transA", [h.make_node("Gemm", ["w", "xt"], ["y"], transA=1),
                                  h.make_node("Transpose", ["y"], ["z"])],
                  [], [("z", F)], [const("w", RNG.rand(4, 3).astype(np.float32)),
                                    const("xt", RNG.rand(4, 2).astype(np.float32))]))
    c.append(Case("Einsum-attention", [h.make_node("Einsum", ["q", "k"], ["y"],
                                                   equation="bhqd,bhkd->bhqk")],
                  [("q", F, [2, 3, 4]), ("k", F, [2, 5, 4])], [("y", F)]))
    c.append(Case("Einsum-implicit", [h.make_node("Einsum", ["x", "w"], ["y"], equation="bij,jk")],
                  [("x", F, [3, 4])], [("y", F)], [const("w", RNG.rand(4, 2).astype(np.float32))]))
    # Contractions wide enough for column panels (16 columns): weights
    # packed by the compiler, with columns left over (37 = 2 x 16 + 5),
    # transposed (Gemm's transB); activations packed by the program
    # (batched, and attention's key product reading K as (n, k)).
    c.append(Case("MatMul-panels", [h.make_node("MatMul", ["x", "w"], ["y"])],
                  [("x", F, [20, 24])], [("y", F)],
                  [const("w", RNG.rand(24, 37).astype(np.float32))]))
    c.append(Case("Gemm-transB-panels", [h.make_node("Gemm", ["x", "w"], ["y"], transB=1)],
                  [("x", F, [24])], [("y", F)],
                  [const("w", RNG.rand(40, 24).astype(np.float32))]))
    c.append(Case("MatMul-batched-panels", [h.make_node("MatMul", ["a", "b"], ["y"])],
                  [("a", F, [20, 8]), ("b", F, [8, 35])], [("y", F)]))
    c.append(Case("Einsum-attention-panels", [h.make_node("Einsum", ["q", "k"], ["y"],
                                                          equation="bhqd,bhkd->bhqk")],
                  [("q", F, [2, 17, 8]), ("k", F, [2, 33, 8])], [("y", F)]))
    # Products over an empty dimension: K = 0 gives zeros, N = 0 nothing
    # (the register tiling once crashed on both).
    c.append(Case("MatMul-empty-K", [h.make_node("MatMul", ["x", "w"], ["y"])],
                  [("x", F, [3, 0])], [("y", F)],
                  [const("w", np.zeros((0, 4), np.float32))]))
    c.append(Case("MatMul-empty-N", [h.make_node("MatMul", ["x", "w"], ["y"])],
                  [("x", F, [3, 4])], [("y", F)],
                  [const("w", np.zeros((4, 0), np.float32))]))
    # Convolutions and poolings, which the CPU runs in NHWC: windows at
    # any stride as direct convolutions, 1x1 kernels at a stride on a
    # strided view, depthwise ones and poolings as
    # register tiles of channel vectors (and as loops where the channels
    # are not a multiple of the vector), grouped ones in NCHW.
    def conv(name, channels, out, kernel, image=(9, 10), **attrs):
        group = attrs.get("group", 1)
        return Case(f"Conv-{name}",
                    [h.make_node("Conv", ["x", "w", "b"], ["c"], **attrs),
                     h.make_node("Relu", ["c"], ["y"])],
                    [("x", F, [channels, *image])], [("y", F)],
                    [const("w", RNG.randn(out, channels // group, *kernel)
                           .astype(np.float32)),
                     const("b", RNG.randn(out).astype(np.float32))])
    c.append(conv("3x3-pad", 16, 32, (3, 3), pads=[1, 1, 1, 1]))
    c.append(conv("3x2-dilated", 8, 48, (3, 2), dilations=[2, 1], pads=[0, 1, 2, 0]))
    c.append(conv("1x1-strided", 16, 32, (1, 1), strides=[2, 2]))
    # 10 input channels: a register tile's sum over them ends with a
    # remainder after a loop of partial sums, which must not start from
    # the bias again.
    c.append(conv("1x1-10-channels", 10, 32, (1, 1)))
    c.append(conv("3x3-strided", 3, 16, (3, 3), strides=[2, 2], pads=[1, 1, 1, 1]))
    # A stem (7x7 at stride 2 on 3 channels): 10 output pixels a row, tiles
    # of 8 and 2, each reading every other pixel of its window; and a
    # stride of 3 across, 2 down, dilated, with 48 channels (one wide panel
    # and a half).
    c.append(conv("7x7-stem", 3, 32, (7, 7), image=(19, 20), strides=[2, 2],
                  pads=[3, 3, 3, 3]))
    c.append(conv("3x3-strided-dilated", 16, 48, (3, 3), image=(17, 23),
                  strides=[2, 3], dilations=[2, 1], pads=[1, 0, 2, 1]))
    c.append(conv("depthwise", 32, 32, (3, 3), group=32, pads=[1, 1, 1, 1]))
    c.append(conv("depthwise-strided", 48, 48, (3, 3), group=48, strides=[2, 2],
                  dilations=[1, 2], pads=[1, 2, 0, 1]))
    c.append(conv("depthwise-12", 12, 12, (5, 5), group=12, pads=[2, 2, 2, 2]))
    c.append(conv("grouped", 8, 16, (3, 3), group=2, pads=[1, 1, 1, 1]))
    # Depthwise convolutions and poolings between two convolutions, which
    # keep them in NHWC as MobileNet's and ResNet's blocks do: their channel
    # tiles start from the bias (a pooling's fill) and store through the
    # clip, the residual sum and ReLU or the average's division, with no
    # buffer of their own per chunk of rows.
    def nhwc_block(name, middle, inits, channels=48, image=(14, 15)):
        return Case(f"NHWC-{name}",
                    [h.make_node("Conv", ["x", "we"], ["e"]), *middle,
                     h.make_node("Conv", ["m", "wp"], ["y"])],
                    [("x", F, [8, *image])], [("y", F)],
                    [const("we", RNG.randn(channels, 8, 1, 1).astype(np.float32)),
                     const("wp", RNG.randn(16, channels, 1, 1).astype(np.float32)),
                     *inits])
    for stride in (1, 2):
        c.append(nhwc_block(
            f"depthwise-clip-stride{stride}",
            [h.make_node("Conv", ["e", "wd", "bd"], ["d"], group=48, pads=[1, 1, 1, 1],
                         strides=[stride, stride]),
             h.make_node("Clip", ["d", "lo", "hi"], ["m"])],
            [const("wd", RNG.randn(48, 1, 3, 3).astype(np.float32)),
             const("bd", RNG.randn(48).astype(np.float32)),
             const("lo", np.float32(0)), const("hi", np.float32(6))]))
    c.append(nhwc_block(
        "depthwise-residual",
        [h.make_node("Conv", ["e", "wd", "bd"], ["d"], group=32, pads=[1, 1, 1, 1]),
         h.make_node("Add", ["d", "e"], ["s"]),
         h.make_node("Relu", ["s"], ["m"])],
        [const("wd", RNG.randn(32, 1, 3, 3).astype(np.float32)),
         const("bd", RNG.randn(32).astype(np.float32))], channels=32))
    c.append(nhwc_block(
        "MaxPool", [h.make_node("MaxPool", ["e"], ["m"], kernel_shape=[3, 3],
                                strides=[2, 2], pads=[1, 1, 1, 1])], []))
    c.append(nhwc_block(
        "AveragePool", [h.make_node("AveragePool", ["e"], ["m"], kernel_shape=[3, 3],
                                    pads=[1, 1, 1, 1])], []))
    # Activations and residual sums are applied by the contraction's register
    # tiles before they store (qdq-vectorize-contractions' epilogues), the
    # remainder tiles of a 9x10 map and of 20 rows included.
    c.append(Case("Conv-residual-clip",
                  [h.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                   h.make_node("Add", ["c", "x"], ["s"]),
                   h.make_node("Clip", ["s", "lo", "hi"], ["y"])],
                  [("x", F, [16, 9, 10])], [("y", F)],
                  [const("w", RNG.randn(16, 16, 3, 3).astype(np.float32)),
                   const("b", RNG.randn(16).astype(np.float32)),
                   const("lo", np.float32(0)), const("hi", np.float32(6))]))
    c.append(Case("MatMul-bias-erf",
                  [h.make_node("MatMul", ["x", "w"], ["m"]),
                   h.make_node("Add", ["m", "b"], ["s"]),
                   h.make_node("Erf", ["s"], ["y"])],
                  [("x", F, [20, 24])], [("y", F)],
                  [const("w", RNG.randn(24, 48).astype(np.float32) / 4),
                   const("b", RNG.randn(48).astype(np.float32))]))
    for name, op, attrs in [
            ("MaxPool-strided", "MaxPool", dict(kernel_shape=[3, 3], strides=[2, 2],
                                                pads=[1, 1, 1, 1])),
            ("AveragePool", "AveragePool", dict(kernel_shape=[2, 3], strides=[1, 2])),
            ("AveragePool-pads", "AveragePool", dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                                     count_include_pad=1))]:
        c.append(Case(f"Conv-{name}",
                      [h.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                       h.make_node(op, ["c"], ["y"], **attrs)],
                      [("x", F, [8, 11, 10])], [("y", F)],
                      [const("w", RNG.randn(32, 8, 3, 3).astype(np.float32))]))
    c.append(Case("ConvTranspose", [h.make_node("ConvTranspose", ["x", "w", "b"], ["y"],
                                                strides=[2, 3], pads=[1, 0, 0, 1],
                                                output_padding=[1, 0], dilations=[1, 2])],
                  [("x", F, [3, 4, 5])], [("y", F)],
                  [const("w", RNG.rand(3, 2, 3, 2).astype(np.float32)),
                   const("b", RNG.rand(2).astype(np.float32))]))
    # Resize, the forms exporters write: torch's nearest upsampling
    # (asymmetric, floor) and bilinear interpolation (half_pixel or
    # align_corners), by scales and by sizes.
    empty = const("roi", np.zeros(0, np.float32))
    for name, attrs, scales, sizes in [
            ("nearest-floor", dict(mode="nearest", coordinate_transformation_mode="asymmetric",
                                   nearest_mode="floor"), [1, 1, 2, 2], None),
            ("nearest-half-pixel", dict(mode="nearest"), [1, 1, 1.5, 0.75], None),
            ("linear-half-pixel", dict(mode="linear"), [1, 1, 2, 1.5], None),
            ("linear-align-corners", dict(mode="linear", coordinate_transformation_mode="align_corners"),
             None, [2, 3, 7, 3]),
            ("linear-pytorch-half-pixel", dict(mode="linear",
                                               coordinate_transformation_mode="pytorch_half_pixel"),
             None, [2, 3, 1, 9])]:
        inits = [empty]
        if scales:
            inits.append(const("scales", np.array(scales, np.float32)))
            inputs = ["x", "roi", "scales"]
        else:
            inits.append(const("sizes", np.array(sizes, np.int64)))
            inputs = ["x", "roi", "", "sizes"]
        c.append(Case(f"Resize-{name}", [h.make_node("Resize", inputs, ["y"], **attrs)],
                      [("x", F, [3, 4, 6])], [("y", F)], inits, tol=1e-5))
    # Ops ONNX defines as functions of others, which the import replaces by
    # their function bodies: CastLike (its own lowering), and opset 23's
    # Attention (grouped-query and causal with a cache; 3-D with head
    # counts, a boolean mask, scale and softcap) and RotaryEmbedding (the
    # whole head with position ids, which splits off an empty pass-through
    # part; 3-D, interleaved, half the head).
    c.append(Case("CastLike", [h.make_node("Cast", ["x"], ["i"], to=I64),
                               h.make_node("CastLike", ["i", "x"], ["y"])],
                  [("x", F, [7])], [("y", F)], opset=15))
    c.append(Case("Attention-gqa-causal-cache", [
        h.make_node("Attention", ["q", "k", "v", "", "pk", "pv"], ["y", "ck", "cv"],
                    is_causal=1)],
        [("q", F, [4, 5, 8]), ("k", F, [2, 5, 8]), ("v", F, [2, 5, 8]),
         ("pk", F, [2, 3, 8]), ("pv", F, [2, 3, 8])],
        [("y", F, [4, 5, 8]), ("ck", F, [2, 8, 8]), ("cv", F, [2, 8, 8])], opset=23))
    mask = RNG.rand(2, 1, 5, 5) > 0.3
    mask[..., np.arange(5), np.arange(5)] = True
    c.append(Case("Attention-3d-mask-softcap", [
        h.make_node("Attention", ["q", "k", "v", "m"], ["y"], q_num_heads=4, kv_num_heads=2,
                    scale=0.3, softcap=5.0)],
        [("q", F, [5, 32]), ("k", F, [5, 16]), ("v", F, [5, 16]), ("m", B, [1, 5, 5])],
        [("y", F, [5, 32])], opset=23, data={"m": mask}))
    positions = np.arange(16)[:, None] / 10000 ** (np.arange(4) / 4)
    cos, sin = const("cos", np.cos(positions).astype(np.float32)), \
        const("sin", np.sin(positions).astype(np.float32))
    c.append(Case("RotaryEmbedding-positions", [
        h.make_node("RotaryEmbedding", ["x", "cos", "sin", "p"], ["y"])],
        [("x", F, [4, 5, 8]), ("p", I64, [5])], [("y", F, [4, 5, 8])], [cos, sin],
        opset=23, tol=1e-4, data={"p": np.array([np.arange(2, 7), np.arange(5)], np.int64)}))
    half = [const("cos", np.cos(positions[:, :2]).astype(np.float32)),
            const("sin", np.sin(positions[:, :2]).astype(np.float32))]
    c.append(Case("RotaryEmbedding-3d-interleaved-partial", [
        h.make_node("RotaryEmbedding", ["x", "cos", "sin", "p"], ["y"], interleaved=1,
                    num_heads=4, rotary_embedding_dim=4)],
        [("x", F, [5, 32]), ("p", I64, [5])], [("y", F, [5, 32])], half, opset=23,
        tol=1e-4, data={"p": np.tile(np.arange(5), (2, 1))}))
    return c


def main():
    qdq_run, work = sys.argv[1], Path(sys.argv[2])
    only = set(sys.argv[3:])
    work.mkdir(parents=True, exist_ok=True)
    failed = total = 0
    for case in cases():
        if only and case.name not in only:
            continue
        total += 1
        d = work / case.name
        d.mkdir(exist_ok=True)
        path = d / "model.onnx"
        onnx.save(case.model(), path)
        arrays = case.arrays()
        args = [qdq_run, str(path)]
        for name, _, _ in case.inputs:
            np.save(d / f"{name}.npy", arrays[name])
            args += ["--input", str(d / f"{name}.npy")]
        outputs = [d / f"output{i}.npy" for i in range(len(case.outputs))]
        for output in outputs:
            args += ["--output", str(output)]
        run = subprocess.run(args, capture_output=True, text=True)
        if run.returncode != 0:
            failed += 1
            print(f"{case.name}: FAIL qdq-run exited {run.returncode}: {run.stderr.strip()[:400]}")
            continue
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        why, worst = None, 0.0
        for (name, *_), ref, output in zip(case.outputs, session.run(None, arrays), outputs):
            got = np.load(output)
            if ref.shape != got.shape:
                why = f"shape of {name} {got.shape}, ORT {ref.shape}"
                break
            ref64, got64 = ref.astype(np.float64), got.astype(np.float64)
            if ref64.size == 0:  # Same shape, nothing to differ.
                continue
            scale = max(float(np.abs(ref64).max()), 1e-30)
            err = float(np.abs(ref64 - got64).max()) / scale
            worst = max(worst, err)
            if err > case.tol:
                why = f"{name}: max |diff| / max |ort| = {err:.2e}"
                break
        if why:
            failed += 1
            print(f"{case.name}: FAIL {why}")
        else:
            print(f"{case.name}: ok {worst:.1e}")
    print(f"all {total} cases match" if not failed else f"{failed} of {total} cases differ")


if __name__ == "__main__":
    main()
