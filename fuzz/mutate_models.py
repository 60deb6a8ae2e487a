#!/usr/bin/env python3
"""Semantic mutation of an ONNX model: which mutants does quant-qdq accept
that ONNX's full checker refuses, and does it ever write a file the checker
refuses?

    mutate_models.py MODEL QDQ_OPT [--seconds 600] [--count N] [--seed 1]
                     [--options="--insert-qdq=transformer"] [--work DIR]

Each mutant changes one thing a broken exporter or a hostile file could:
the declared opset (18, 21, 23, 30: the nodes keep their older schemas), a
node input rewired to a tensor produced later or to another of the graph's
tensors, a node's op type (its attributes dropped), an initializer's
element type or first dimension, an integer attribute's value, a graph
input's element type, or a graph output listed twice. Every mutant goes
through `qdq-opt MUTANT OPTIONS -o OUT` and ONNX's
`check_model(full_check=True)`; each written OUT through the checker too.

Counted per class: exit 0 on a mutant the checker refuses ("accepted"),
files written that the checker refuses ("invalid written"), exit statuses
other than 0 and 1 (crashes) and time-outs. A mutant refused only because
its nodes are out of dependency order is accepted by design (ONNX Runtime
sorts them too; the import sorts them and the file written passes): it is
counted apart, as "unsorted, read sorted". Exits 1 when anything but that
was accepted or written invalid, or a run crashed or hung.
"""
import argparse
import copy
import random
import sys

import onnx
from onnx import TensorProto

from mutation_campaign import Campaign, add_campaign_arguments


def set_opset(model, rng):
    version = rng.choice([18, 21, 23, 30])
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            entry.version = version
    return f"opset {version}"


def rewire(model, rng, later):
    """One input of a random node rewired: to a tensor produced at or after
    the node (`later`), or to a graph input or an earlier node's output."""
    nodes = model.graph.node
    i = rng.randrange(len(nodes))
    if not nodes[i].input:
        return None
    if later:
        pool = [o for node in nodes[i:] for o in node.output]
    else:
        pool = [v.name for v in model.graph.input] + [
            o for node in nodes[:i] for o in node.output]
    nodes[i].input[rng.randrange(len(nodes[i].input))] = rng.choice(pool)
    return f"an input of {nodes[i].name} rewired to " + (
        "a tensor produced at or after it" if later else "an earlier tensor")


def rewire_later(model, rng):
    return rewire(model, rng, later=True)


def rewire_any(model, rng):
    return rewire(model, rng, later=False)


def change_op_type(model, rng):
    binary = [n for n in model.graph.node if len(n.input) == 2]
    if not binary:
        return None
    node = rng.choice(binary)
    node.op_type = rng.choice(["Gather", "MatMul", "Add", "Pow", "Equal"])
    del node.attribute[:]
    return f"{node.name} made a {node.op_type}"


def change_initializer(model, rng):
    tensor = rng.choice(list(model.graph.initializer))
    if tensor.data_type == TensorProto.FLOAT and tensor.raw_data:
        tensor.data_type = TensorProto.INT32
        return f"{tensor.name} retyped int32"
    if tensor.dims:
        tensor.dims[0] += 1
        return f"{tensor.name} one row longer than its data"
    return None


def change_attribute(model, rng):
    ints = [(n, a) for n in model.graph.node for a in n.attribute
            if a.type == onnx.AttributeProto.INT]
    if not ints:
        return None
    node, attribute = rng.choice(ints)
    attribute.i = rng.choice([-5, 7, 99, 1 << 40])
    return f"{node.name}.{attribute.name} = {attribute.i}"


def change_input_type(model, rng):
    graph_input = rng.choice(list(model.graph.input))
    graph_input.type.tensor_type.elem_type = rng.choice(
        [TensorProto.FLOAT, TensorProto.INT32, TensorProto.DOUBLE])
    return f"input {graph_input.name} retyped"


def output_twice(model, rng):
    model.graph.output.append(copy.deepcopy(model.graph.output[0]))
    return "an output listed twice"


MUTATIONS = [set_opset, rewire_later, rewire_any, change_op_type,
             change_initializer, change_attribute, change_input_type,
             output_twice]


def checker_error(path):
    try:
        onnx.checker.check_model(str(path), full_check=True)
        return None
    except Exception as error:  # noqa: BLE001 - the verdict is the result
        return str(error)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("qdq_opt")
    parser.add_argument("--options", default="--insert-qdq=transformer")
    work_folder = add_campaign_arguments(parser, "qdq-mutants-")
    args = parser.parse_args()

    base = onnx.load(args.model)
    rng = random.Random(args.seed)
    work = work_folder(args)
    campaign = Campaign(work, ["accepted", "invalid written",
                               "unsorted, read sorted"],
                        benign=["unsorted, read sorted"])
    while campaign.running(args.seconds, args.count):
        mutation = rng.choice(MUTATIONS)
        model = copy.deepcopy(base)
        what = mutation(model, rng)
        if what is None:
            continue
        path, out = work / "mutant.onnx", work / "mutant.out.onnx"
        onnx.save(model, path)
        out.unlink(missing_ok=True)
        refused = checker_error(path)
        status, _ = campaign.run([args.qdq_opt, str(path),
                                  *args.options.split(), "-o", str(out)])
        problem = None
        if status == "timeout" or status not in (0, 1):
            problem = f"exit {status}"
        elif status == 0 and out.exists() and checker_error(out):
            problem = "invalid written"
        elif status == 0 and refused:
            unsorted = "topologically sorted" in refused
            problem = "unsorted, read sorted" if unsorted else "accepted"
        campaign.record(mutation.__name__, problem, path, what)
    return campaign.report(f"{args.model} (qdq-opt {args.options})")


if __name__ == "__main__":
    sys.exit(main())
