#!/usr/bin/env python3
"""Semantic mutation of Keras files through qdq-opt's importer child: does
a broken or hostile `.keras`/`.h5` file ever crash or hang the tools, leave
a half-written output, fail without a located error, or come out as ONNX
that ONNX's checker or ONNX Runtime refuses?

    mutate_keras.py QDQ_OPT [--seconds 600] [--count N] [--seed 1]
                    [--work DIR]

The seeds are made here (Keras 3): a small CNN (Conv, BatchNorm, ReLU,
pooling, Add, Dense), the same after TFMOT's API (quant_qdq.keras:
QuantizeWrapper, QuantizeLayer, quantizer variables), an annotated one
(QuantizeAnnotate with configs) and one after quantization-aware training
at NVIDIA's placement (FakeQuantize, QuantizeWeights), each as `.keras`,
the CNN also as `.h5`. A mutant changes one thing in a `.keras` file's
config.json (a value replaced by a number out of range, a string, null or
a list; a key dropped; a layer's class changed; a layer input rewired to
another layer, itself included; a quantizer's bits, axis or range flags
set wild) or its bytes (flipped, or the file cut short), or an `.h5`
file's bytes. Each goes through `qdq-opt MUTANT [--insert-qdq=resnet-v1]
-o OUT`.

Expected: exit 0 with OUT passing `check_model(full_check=True)` and
loading in ONNX Runtime, or exit 1 with a located error (`FILE:L:C:
error:`) and no OUT. Counted per class: exit statuses other than 0 and 1,
time-outs, "no location" (exit 1 without one), "output left" (exit 1 with
an OUT), "invalid written" (exit 0, the checker or ONNX Runtime refuses
OUT), "no output" (exit 0 without OUT). Exits 1 when any of these
happened.
"""
import argparse
import io
import json
import os
import random
import re
import sys
import zipfile
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from mutation_campaign import Campaign, add_campaign_arguments  # noqa: E402

LOCATED_ERROR = re.compile(r":\d+:\d+: error:")
WILD_VALUES = [-1, 0, 1, 3, 17, 2 ** 31, -2 ** 63, 1e30, float("nan"),
               "x", None, [], {}, [1, 2, 3], True]


def make_seeds(folder: Path):
    """[(path, qdq-opt options)] of the seed files."""
    import keras
    import numpy as np

    import quant_qdq as qq
    import quant_qdq.keras as qk

    keras.utils.set_random_seed(0)
    L = keras.layers

    def cnn():
        inputs = keras.Input((8, 8, 3), name="image")
        x = L.Conv2D(8, 3, padding="same", name="conv")(inputs)
        x = L.BatchNormalization(name="bn")(x)
        x = L.ReLU(name="relu")(x)
        y = L.Conv2D(8, 1, name="branch")(x)
        x = L.Add(name="add")([x, y])
        x = L.MaxPooling2D(name="pool")(x)
        x = L.GlobalAveragePooling2D(name="gap")(x)
        return keras.Model(inputs, L.Dense(4, name="fc")(x))

    x = np.random.default_rng(0).random((8, 8, 8, 3), np.float32)
    seeds = []
    model = cnn()
    for suffix in (".keras", ".h5"):
        path = folder / f"cnn{suffix}"
        model.save(path)
        seeds.append((path, ["--insert-qdq=resnet-v1"]))
    tfmot = qk.quantize_model(cnn())
    tfmot(x, training=True)
    tfmot.save(folder / "tfmot.keras")
    seeds.append((folder / "tfmot.keras", []))
    annotated = qk.quantize_annotate_model(keras.Sequential([
        keras.Input((8, 8, 3)),
        qk.quantize_annotate_layer(L.Conv2D(4, 3), qk.NoOpQuantizeConfig()),
        L.ReLU(), L.Flatten(), L.Dense(3)]))
    annotated.save(folder / "annotated.keras")
    seeds.append((folder / "annotated.keras", []))
    qat = qq.quantize_model(cnn(), qat=True, calibration_data=x)
    qat.save(folder / "nvidia_qat.keras")
    seeds.append((folder / "nvidia_qat.keras", []))
    return seeds


def json_nodes(value, path=()):
    """Every (path, value) in a JSON tree."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_nodes(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from json_nodes(item, path + (i,))


def at(tree, path):
    for key in path:
        tree = tree[key]
    return tree


def replace_value(config, rng):
    leaves = [(p, v) for p, v in json_nodes(config)
              if p and not isinstance(v, (dict, list))]
    path, old = rng.choice(leaves)
    new = rng.choice(WILD_VALUES)
    at(config, path[:-1])[path[-1]] = new
    return f"{'/'.join(map(str, path))}: {old!r} -> {new!r}"


def drop_key(config, rng):
    keys = [p for p, v in json_nodes(config) if p and isinstance(p[-1], str)]
    path = rng.choice(keys)
    del at(config, path[:-1])[path[-1]]
    return f"dropped {'/'.join(map(str, path))}"


def layers_of(config):
    return [v for _, v in json_nodes(config)
            if isinstance(v, dict) and "class_name" in v and "config" in v]


def change_class(config, rng):
    layers = layers_of(config)
    layer = rng.choice(layers)
    new = rng.choice([other["class_name"] for other in layers]
                     + ["NoSuchLayer", "Lambda", "Functional"])
    old, layer["class_name"] = layer["class_name"], new
    return f"class {old} -> {new}"


def rewire(config, rng):
    histories = [v for _, v in json_nodes(config)
                 if isinstance(v, dict) and "keras_history" in v]
    names = [v["name"] for _, v in json_nodes(config)
             if isinstance(v, dict) and isinstance(v.get("name"), str)]
    if not histories or not names:
        return None
    history = rng.choice(histories)["keras_history"]
    old, history[0] = history[0], rng.choice(names + ["nowhere"])
    return f"input {old} -> {history[0]}"


def wild_quantizer(config, rng):
    keys = ("num_bits", "per_axis", "symmetric", "narrow_range",
            "weight_attrs", "activation_attrs", "quantize_output",
            "range_tracking", "initial_amax", "ema_decay", "kernel_type")
    found = [(p, v) for p, v in json_nodes(config)
             if p and p[-1] in keys]
    if not found:
        return None
    path, old = rng.choice(found)
    new = rng.choice(WILD_VALUES + [["kernel", "bias"], ["nothing"]])
    at(config, path[:-1])[path[-1]] = new
    return f"{'/'.join(map(str, path))}: {old!r} -> {new!r}"


CONFIG_MUTATIONS = [replace_value, drop_key, change_class, rewire,
                    wild_quantizer]


def mutate_archive(data: bytes, rng):
    """(mutant bytes, class, what) of a .keras archive."""
    choice = rng.random()
    if choice < 0.7:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = {n: archive.read(n) for n in archive.namelist()}
        config = json.loads(members["config.json"])
        mutation = rng.choice(CONFIG_MUTATIONS)
        what = mutation(config, rng)
        if what is None:
            return None
        members["config.json"] = json.dumps(config).encode()
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as archive:
            for name, content in members.items():
                archive.writestr(name, content)
        return out.getvalue(), mutation.__name__, what
    return mutate_bytes(data, rng)


def mutate_bytes(data: bytes, rng):
    if rng.random() < 0.5:
        cut = rng.randrange(len(data))
        return data[:cut], "truncate", f"cut at {cut} of {len(data)}"
    data = bytearray(data)
    spots = [rng.randrange(len(data)) for _ in range(rng.randint(1, 8))]
    for spot in spots:
        data[spot] = rng.randrange(256)
    return bytes(data), "flip_bytes", f"bytes at {spots}"


def verdict(status, output, out: Path):
    """The problem with one run, or None."""
    if status == "timeout" or status not in (0, 1):
        return f"exit {status}"
    if status == 1:
        if out.exists():
            return "output left"
        if not LOCATED_ERROR.search(output):
            return "no location"
        return None
    if not out.exists():
        return "no output"
    import onnx
    import onnxruntime
    try:
        onnx.checker.check_model(str(out), full_check=True)
        onnxruntime.InferenceSession(str(out),
                                     providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 - the verdict is the result
        return "invalid written"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("qdq_opt")
    work_folder = add_campaign_arguments(parser, "qdq-keras-mutants-")
    args = parser.parse_args()

    work = work_folder(args)
    seeds = make_seeds(work)
    rng = random.Random(args.seed)
    campaign = Campaign(work, ["no location", "output left",
                               "invalid written", "no output"])
    while campaign.running(args.seconds, args.count):
        seed, options = rng.choice(seeds)
        data = seed.read_bytes()
        made = (mutate_archive(data, rng) if seed.suffix == ".keras"
                else mutate_bytes(data, rng))
        if made is None:
            continue
        content, kind, what = made
        mutant, out = work / f"mutant{seed.suffix}", work / "mutant.out.onnx"
        mutant.write_bytes(content)
        out.unlink(missing_ok=True)
        status, output = campaign.run(
            [args.qdq_opt, str(mutant), *options, "-o", str(out)])
        campaign.record(f"{seed.stem}:{kind}", verdict(status, output, out),
                        mutant, what)
    return campaign.report("the Keras seeds")


if __name__ == "__main__":
    sys.exit(main())
