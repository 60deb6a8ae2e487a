#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target, taken from the tests.

    make_seeds.py OUTDIR

OUTDIR/<target>/ gets, for
  onnx-import        every model test/Target/ONNX/Inputs/make_model.py
                     writes (the large-graph ones excepted) and its
                     malformed files;
  npy                arrays of each supported dtype and .npy version, and
                     the bad arrays the qdq-run tests use;
  external-data      models whose tensors live in `weights.data` (four
                     bytes of the model's length, the model, the data):
                     valid ones, and locations, offsets and lengths that
                     lie;
  npz                archives of those arrays, stored (numpy.savez) and
                     deflated (numpy.savez_compressed), a decoder's feeds
                     (input_ids, attention_mask, past keys and values), and
                     an archive holding a file that is not an array;
  calibration-table  a JSON table and a TensorRT cache;
  spec               the quantization specs of test/Transforms/InsertQDQ
                     and the TensorQuant maps of InsertNumberFormats;
  mlir               the examples and the dialect's tests, split at their
                     `// -----` markers;
and every target also the inputs that once crashed or hung it, kept in
fuzz/regressions/<target>/.
"""

import io
import json
import pathlib
import sys
import tempfile
import zipfile

import numpy as np
import onnx

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "test" / "Target" / "ONNX" / "Inputs"))
import make_model  # noqa: E402

LARGE = {"relu_chain_100k", "residual_10k"}


def onnx_seeds(out):
    for name, build in make_model.MODELS.items():
        if name not in LARGE:
            (out / f"{name}.onnx").write_bytes(build().SerializeToString())
    for name, build in make_model.RAW.items():
        (out / f"{name}.onnx").write_bytes(build())


def npy_seeds(out):
    arrays = {
        "f32": np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4),
        "f64": np.arange(6, dtype=np.float64),
        "f16": np.ones((2, 2), np.float16),
        "i8": np.array([-128, 0, 127], np.int8),
        "u8": np.array([[0, 255]], np.uint8),
        "i32": np.arange(4, dtype=np.int32),
        "i64": np.arange(3, dtype=np.int64).reshape(3, 1),
        "bool": np.array([True, False]),
        "scalar": np.float32(3.5),
        "empty": np.zeros((0, 4), np.float32),
    }
    for name, array in arrays.items():
        buffer = io.BytesIO()
        np.save(buffer, array)
        (out / f"{name}.npy").write_bytes(buffer.getvalue())
    for version in [(2, 0), (3, 0)]:
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, arrays["f32"], version=version)
        (out / f"v{version[0]}.npy").write_bytes(buffer.getvalue())
    buffer = io.BytesIO()
    np.save(buffer, np.asfortranarray(np.ones((2, 3), np.float32)))
    (out / "fortran.npy").write_bytes(buffer.getvalue())
    (out / "garbage.npy").write_bytes(b"not an array")


def npz_seeds(out):
    arrays = {
        "f32": np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4),
        "i64": np.arange(3, dtype=np.int64).reshape(3, 1),
        "u8": np.array([[0, 255]], np.uint8),
        "empty": np.zeros((0, 4), np.float32),
    }
    decoder = {
        "input_ids": np.arange(8, dtype=np.int64).reshape(1, 8),
        "attention_mask": np.ones((1, 8), np.int64),
        "position_ids": np.arange(8, dtype=np.int64).reshape(1, 8),
        "past_key_values.0.key": np.zeros((1, 2, 0, 16), np.float32),
        "past_key_values.0.value": np.zeros((1, 2, 0, 16), np.float32),
    }
    for name, save in [("stored", np.savez),
                       ("deflated", np.savez_compressed)]:
        for kind, content in [("arrays", arrays), ("decoder", decoder)]:
            buffer = io.BytesIO()
            save(buffer, **content)
            (out / f"{kind}-{name}.npz").write_bytes(buffer.getvalue())
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "not an array")
    (out / "not-an-array.npz").write_bytes(buffer.getvalue())


def external_data_seeds(out):
    def pack(model, data):
        raw = model.SerializeToString()
        return len(raw).to_bytes(4, "little") + raw + data

    def externalize(model):
        """`model` with every tensor in weights.data, and that data."""
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "model.onnx"
            onnx.save(model, path, save_as_external_data=True,
                      all_tensors_to_one_file=True, location="weights.data",
                      size_threshold=0)
            return onnx.load(path, load_external_data=False), (
                pathlib.Path(folder) / "weights.data").read_bytes()

    for name in ["conv_block", "matmul_bias", "qdq"]:
        model, data = externalize(make_model.MODELS[name]())
        (out / f"{name}.bin").write_bytes(pack(model, data))
    model, data = externalize(make_model.MODELS["conv_block"]())
    for case, key, value in [("absolute", "location", "/etc/hostname"),
                             ("parent", "location", "../weights.data"),
                             ("offset", "offset", str(len(data) + 7)),
                             ("length", "length", "3")]:
        lying = onnx.ModelProto()
        lying.CopyFrom(model)
        entry = next((e for e in lying.graph.initializer[0].external_data
                      if e.key == key), None)
        if entry is None:
            entry = lying.graph.initializer[0].external_data.add()
            entry.key = key
        entry.value = value
        (out / f"lying-{case}.bin").write_bytes(pack(lying, data))


def table_seeds(out):
    (out / "table.json").write_text(json.dumps({
        "method": "entropy",
        "tensors": {"input": {"amax": 2.5, "min": -2.0, "max": 2.5},
                    "conv1_output_0": {"amax": 6.0}}}, indent=2))
    (out / "table.cache").write_text(
        "TRT-8600-EntropyCalibration2\ninput: 3ca1a1a2\n"
        "conv1_output_0: 3d418d97\n")


def spec_seeds(out):
    for folder in ["InsertQDQ", "InsertNumberFormats"]:
        for path in sorted((ROOT / "test" / "Transforms" / folder /
                            "Inputs").glob("*.json")):
            (out / f"{folder}-{path.name}").write_bytes(path.read_bytes())


def mlir_seeds(out):
    sources = sorted((ROOT / "examples").glob("*.mlir"))
    for folder in ["IR", "Transforms/InsertQDQ"]:
        sources += sorted((ROOT / "test" / folder).glob("*.mlir"))
    for path in sources:
        parts = path.read_text().split("// -----")
        for i, part in enumerate(parts):
            stem = path.relative_to(ROOT).as_posix().replace("/", "_")
            (out / f"{stem}.{i}.mlir").write_text(part)


def main():
    out = pathlib.Path(sys.argv[1])
    for target, write in [("onnx-import", onnx_seeds), ("npy", npy_seeds),
                          ("npz", npz_seeds),
                          ("external-data", external_data_seeds),
                          ("calibration-table", table_seeds),
                          ("spec", spec_seeds), ("mlir", mlir_seeds)]:
        folder = out / target
        folder.mkdir(parents=True, exist_ok=True)
        write(folder)
        for path in sorted((ROOT / "fuzz" / "regressions" / target).glob("*")):
            (folder / f"regression-{path.name}").write_bytes(path.read_bytes())


if __name__ == "__main__":
    main()
