#!/usr/bin/env python3
"""Checks the models external-data.test exported, in DIR:

    check_external_data.py DIR INPUT.npy

- ONNX's checker accepts each (it resolves the data files);
- ONNX Runtime computes bitwise the same outputs from every form;
- in the external forms, exactly the tensors of 1 KiB or more are outside,
  each at an aligned offset, inside the data file.
"""

import os
import sys

import numpy as np
import onnx
import onnxruntime as ort


def external_entries(path):
    model = onnx.load(path, load_external_data=False)
    external = os.path.exists(path + ".data")
    sizes = {}
    for t in model.graph.initializer:
        if t.data_location == onnx.TensorProto.EXTERNAL:
            info = {e.key: e.value for e in t.external_data}
            sizes[t.name] = info
            assert info["location"] == os.path.basename(path) + ".data", info
            assert int(info["offset"]) % 64 == 0, info
            assert int(info["length"]) >= 1024, (t.name, info)
        elif external and len(t.raw_data) >= 1024:
            raise AssertionError("%s: %d bytes left inside"
                                 % (t.name, len(t.raw_data)))
    return sizes


def main():
    folder, input_path = sys.argv[1], sys.argv[2]
    x = np.load(input_path)
    outputs = {}
    for name in ["ext", "inline", "never", "always"]:
        path = os.path.join(folder, name + ".onnx")
        onnx.checker.check_model(path, full_check=True)
        session = ort.InferenceSession(path,
                                       providers=["CPUExecutionProvider"])
        outputs[name] = session.run(None, {"x": x})[0]
    for name, y in outputs.items():
        assert np.array_equal(y, outputs["inline"]), name
    for name in ["ext", "always"]:
        entries = external_entries(os.path.join(folder, name + ".onnx"))
        data = os.path.getsize(os.path.join(folder, name + ".onnx.data"))
        assert entries, name
        for info in entries.values():
            assert int(info["offset"]) + int(info["length"]) <= data
        print(name, "external tensors:", len(entries))
    for name in ["inline", "never"]:
        assert not external_entries(os.path.join(folder, name + ".onnx"))
    print("outputs equal:", len(outputs))


if __name__ == "__main__":
    main()
