"""QuantizationSpec files the accuracy benches share."""
import json
from pathlib import Path

# The classes of the layers with weights.
WEIGHTED_CLASSES = ("Conv2D", "DepthwiseConv2D", "Dense")


def write_per_tensor_weights(path):
    """Writes a spec giving every weighted layer one scale per weight tensor
    (an entry per class) to `path`; returns the path."""
    Path(path).write_text(json.dumps({"layers": [
        {"name": cls, "is_keras_class": True,
         "weight_quantizer": {"per_channel": False}}
        for cls in WEIGHTED_CLASSES]}))
    return Path(path)
