"""A custom Q/DQ insertion case written in Python: the toolkit's MaxPool
case, next to a library case, with the user's spec having the last word.

    PYTHONPATH=build/python_packages python3 python/examples/custom_case.py

Prints insert-qdq's report: for every layer, the inputs and weight that got
Q/DQ and the rule that decided.
"""

import torch

import quant_qdq
from quant_qdq import (CustomQDQInsertionCase, QuantizationSpec,
                       ResNetV1QDQCase, check_is_quantizable_by_layer_name)


class MaxPoolQDQCase(CustomQDQInsertionCase):
    def info(self) -> str:
        return "Enables quantization of MaxPool layers."

    def case(self, keras_model, qspec) -> QuantizationSpec:
        # `keras_model` is the model's layer graph: layers with a name, a
        # Keras class, inputs, producers and consumers.
        mp_qspec = QuantizationSpec()
        for layer in keras_model.layers:
            if layer.class_name == "MaxPooling2D":
                if check_is_quantizable_by_layer_name(qspec, layer.name):
                    mp_qspec.add(name=layer.name, quantize_input=True,
                                 quantize_weight=False)
        return mp_qspec


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(2)
        self.conv1 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.head = torch.nn.Conv2d(8, 4, 1)

    def forward(self, x):
        x = self.pool(torch.relu(self.stem(x)))
        y = self.conv2(torch.relu(self.conv1(x)))
        return self.head(torch.relu(x + y))


def main():
    torch.manual_seed(0)
    module = quant_qdq.load_module(Net().eval(),
                                   example_input=torch.randn(1, 3, 16, 16))
    # The user keeps the head's weight in float, whatever the cases say.
    qspec = QuantizationSpec()
    qspec.add(name="/head/Conv", quantize_weight=False)
    report = quant_qdq.insert_qdq(
        module, quantization_spec=qspec,
        custom_qdq_cases=[MaxPoolQDQCase(), ResNetV1QDQCase()])
    print(report, end="")


if __name__ == "__main__":
    main()
