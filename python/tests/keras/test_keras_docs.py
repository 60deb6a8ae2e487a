"""docs/Keras.md is tested: its ```python blocks run, in order, in one
namespace, as a reader would type them."""

import os

from qdq_helpers import REPO_ROOT, run_guide
from quant_qdq.layer_defaults import default_rows, forget_default_row

GUIDE = os.path.join(REPO_ROOT, "docs", "Keras.md")


def test_keras_guide_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = {row.keras_class for row in default_rows()}
    try:
        assert run_guide(GUIDE) >= 3
    finally:
        # The guide defines a wrapper class: its row is the process's.
        for row in default_rows():
            if row.keras_class not in before:
                forget_default_row(row.keras_class)
    assert os.path.exists("resnet50.qdq.onnx")
    assert os.path.exists("resnet50.qat.onnx")
    report = open("pooled.report.txt").read().splitlines()
    assert [line.split() for line in report if line.startswith("gmp ")] == [
        ["gmp", "GlobalMaxPooling2D", "[0]", "no", "case",
         "GlobalMaxPool2DQuantizeWrapper"]]
    assert os.path.exists("four_bit.onnx")
