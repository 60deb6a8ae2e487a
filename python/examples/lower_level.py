"""The lower-level API: import ONNX into MLIR, run a qdq-opt pass pipeline
given as text, read the IR, export back to ONNX.

    PYTHONPATH=build/python_packages python3 python/examples/lower_level.py
"""

import io

import torch

import quant_qdq


def main():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU(),
                              torch.nn.Flatten(), torch.nn.Linear(64, 2))
    buffer = io.BytesIO()
    torch.onnx.export(net, torch.randn(1, 3, 6, 6), buffer, opset_version=13)

    module = quant_qdq.import_onnx(buffer.getvalue())
    quant_qdq.run_pipeline(
        module, "builtin.module(insert-qdq{cases=resnet-v1}, "
                "qdq-weight-scales)")
    text = module.print(large_elements_limit=8)
    for line in text.splitlines():
        if "quant_qdq.quantize" in line or "quant_qdq.conv2d" in line:
            print(line.strip())

    # Bytecode keeps the module, weights included, for a later session.
    again = quant_qdq.parse_module(module.to_bytecode())
    q_model = quant_qdq.export_onnx(again, activation_amax=4.0)
    print(sorted({n.op_type for n in q_model.graph.node}))


if __name__ == "__main__":
    main()
