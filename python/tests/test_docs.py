"""docs/Python.md and python/examples/ are tested: every ```python block of
the guide runs, in order, in one namespace (as a reader would type them);
every example script runs to completion."""

import os
import subprocess
import sys
import warnings

import numpy as np
import onnx
import pytest

import quant_qdq
from qdq_helpers import REPO_ROOT, guide_blocks, op_counts, run_guide, run_onnx

GUIDE = os.path.join(REPO_ROOT, "docs", "Python.md")
EXAMPLES = os.path.join(REPO_ROOT, "python", "examples")


def test_guide_has_examples():
    assert len(guide_blocks(GUIDE)) >= 10


def test_guide_examples_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        # The layer names the guide uses must exist (the block showing the
        # warning records it itself).
        warnings.filterwarnings("error", message=".*no layer named")
        guide = {}
        run_guide(GUIDE, guide)
    # The model the guide writes last (its "Lower-level access") is the
    # one it exported there, valid, with Q/DQ, and ONNX Runtime runs it.
    written = onnx.load("model.qdq.onnx")
    onnx.checker.check_model(written, full_check=True)
    assert written.graph == guide["exported"].graph
    counts = op_counts(written)
    assert counts["QuantizeLinear"] > 0 and counts["DequantizeLinear"] > 0
    x = np.random.default_rng(0).standard_normal(
        (1, 3, 16, 16)).astype(np.float32)
    y = run_onnx(written, x)
    assert y.shape == (1, 10) and np.isfinite(y).all()
    # The TensorRT cache it writes holds the table it collected.
    cache = open("model.cache").read().splitlines()
    assert cache[0].startswith("TRT-") and len(cache) == len(guide["table"]) + 1
    loaded = quant_qdq.CalibrationTable.load("model.cache")
    assert loaded.keys() == guide["table"].keys()
    for name, tensor_range in guide["table"].items():
        assert loaded[name].amax == pytest.approx(tensor_range.amax,
                                                  rel=1e-6), name


@pytest.mark.parametrize("script", sorted(
    f for f in os.listdir(EXAMPLES) if f.endswith(".py")))
def test_example_runs(script, tmp_path):
    # The scripts import the package the tests import, wherever it is.
    package_root = os.path.dirname(os.path.dirname(quant_qdq.__file__))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root] + [p for p in [env.get("PYTHONPATH")] if p])
    result = subprocess.run(
        [sys.executable, os.path.join(EXAMPLES, script)], cwd=str(tmp_path),
        env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip(), "an example prints what it did"
