"""docs/Python.md and python/examples/ are tested: every ```python block of
the guide runs, in order, in one namespace (as a reader would type them);
every example script runs to completion."""

import os
import subprocess
import sys
import warnings

import pytest

import quant_qdq
from qdq_helpers import REPO_ROOT, guide_blocks, run_guide

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
        run_guide(GUIDE)
    assert os.path.exists("model.qdq.onnx")
    assert os.path.exists("model.cache")


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
