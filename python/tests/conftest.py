"""Fixtures of the quant_qdq tests.

Run with the built package first on the path:
    PYTHONPATH=build/python_packages /usr/bin/python3 -m pytest python/tests
"""

import warnings

import numpy as np
import onnx
import pytest

import quant_qdq
from qdq_helpers import resnet_block_model


@pytest.fixture
def block_model():
    return resnet_block_model()


@pytest.fixture
def block_path(tmp_path):
    path = tmp_path / "block.onnx"
    onnx.save(resnet_block_model(), str(path))
    return str(path)


@pytest.fixture
def calib_data():
    return np.random.default_rng(1).standard_normal(
        (16, 3, 8, 8)).astype(np.float32)


@pytest.fixture(autouse=True)
def quiet_uncalibrated(request):
    """Export warns that activations are uncalibrated; tests that look at
    warnings say so with the `warnings_checked` marker."""
    if request.node.get_closest_marker("warnings_checked"):
        yield
        return
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*uncalibrated",
                                category=quant_qdq.QuantQDQWarning)
        yield


def pytest_configure(config):
    config.addinivalue_line("markers",
                            "warnings_checked: the test checks warnings")
