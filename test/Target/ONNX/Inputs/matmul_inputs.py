"""Prints, for each MatMul of a model, what each input comes from (looking
through the data movement that commutes with per-tensor Q/DQ: Reshape,
Transpose, Expand, Unsqueeze, Squeeze), after ONNX's full checker."""
import sys

import onnx

MOVES = {"Reshape", "Transpose", "Expand", "Unsqueeze", "Squeeze"}

model = onnx.load(sys.argv[1])
onnx.checker.check_model(model, full_check=True)
print("checker: ok")
producers = {out: node for node in model.graph.node for out in node.output}


def source(name):
    node = producers.get(name)
    while node is not None and node.op_type in MOVES:
        node = producers.get(node.input[0])
    return node.op_type if node is not None else "input"


for node in model.graph.node:
    if node.op_type == "MatMul":
        print(f"MatMul {node.name} reads " + ", ".join(source(i) for i in node.input))
