"""docs/Keras.md is tested: its ```python blocks run, in order, in one
namespace, as a reader would type them."""

import os

from qdq_helpers import REPO_ROOT, run_guide

GUIDE = os.path.join(REPO_ROOT, "docs", "Keras.md")


def test_keras_guide_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_guide(GUIDE) >= 3
    assert os.path.exists("resnet50.qdq.onnx")
    assert os.path.exists("resnet50.qat.onnx")
