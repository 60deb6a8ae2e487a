"""Lower-level access: MLIR modules, pass pipelines, ONNX import/export.

Models of the front ends (Keras, torch) come in through loading.py, which
sits above them; this module knows ONNX and MLIR only.

A Module owns its MLIR context (and with it the model's weights); every
operation on it goes through the C++ libraries. Failures raise
QuantQDQError with the tool's diagnostics; warnings are issued as
QuantQDQWarning.

>>> m = parse_module('func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {'
...                  ' return %x : tensor<2xf32> }')
>>> run_pipeline(m, "canonicalize")
"""

import errno
import os
import sys

from . import _quant_qdq
from ._quant_qdq import Module, QuantQDQError, QuantQDQWarning

__all__ = ["Module", "QuantQDQError", "QuantQDQWarning", "parse_module",
           "import_onnx", "export_onnx", "save_onnx", "run_pipeline"]


def parse_module(source, name: str = "<string>") -> Module:
    """Parses MLIR text (str) or bytecode (bytes) and verifies it."""
    if isinstance(source, str):
        source = source.encode()
    return _quant_qdq.parse_module(bytes(source), name)


def _onnx_bytes(model):
    """(serialized ModelProto, name for diagnostics) of an in-memory
    `model`."""
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model), "model.onnx"
    onnx = sys.modules.get("onnx")
    if onnx is not None and isinstance(model, onnx.ModelProto):
        name = (model.graph.name or "model") + ".onnx"
        return model.SerializeToString(), name
    raise TypeError("expected an ONNX model (path, bytes or onnx.ModelProto),"
                    " got %s" % type(model).__name__)


def import_onnx(model) -> Module:
    """Imports an ONNX model (file path, serialized bytes or
    onnx.ModelProto) into a module of quant_qdq layer ops. Tensors kept in
    external data are read from the model file's folder (the current
    folder for bytes and ModelProtos)."""
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if not os.path.exists(path):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT),
                                    path)
        # Read by the importer itself: the weights are in memory once.
        return _quant_qdq.import_onnx_file(path)
    data, name = _onnx_bytes(model)
    return _quant_qdq.import_onnx(data, name)


def export_onnx(module: Module, *, integer_weights: bool = True,
                activation_amax: float = 6.0, opset: int = 0,
                matmul_nbits: bool = False):
    """Exports `module` as an onnx.ModelProto with QuantizeLinear and
    DequantizeLinear nodes. Weights without scales get per-channel
    ``max|w| / 127``; uncalibrated activations assume `activation_amax`
    (with a warning). `integer_weights` (default) stores 8-bit weights as
    int8 initializers feeding a DequantizeLinear; False writes them as
    float initializer, QuantizeLinear, DequantizeLinear (TensorRT's QAT
    export form). `opset` is the default-domain opset to write (0: the
    model's, raised to what its Q/DQ nodes need); the nodes kept from the
    model are converted to it. `matmul_nbits` writes dense layers with int4
    weights in blocks along their input channels as ONNX Runtime's
    com.microsoft MatMulNBits (onnxruntime-genai's int4 form)."""
    import onnx
    return onnx.load_from_string(
        module.export_onnx(integer_weights, float(activation_amax),
                           int(opset), bool(matmul_nbits)))


_EXTERNAL_DATA = ("auto", "always", "never")


def save_onnx(module: Module, path, *, integer_weights: bool = True,
              activation_amax: float = 6.0, external_data: str = "auto",
              opset: int = 0, matmul_nbits: bool = False):
    """Exports `module` as export_onnx does, to the file `path`.
    `external_data` keeps tensors of 1 KiB or more in ``<path>.data``:
    "auto" (default) when the imported model kept external data or the
    model is over protobuf's 2 GiB, "always", or "never". Returns `path`."""
    if external_data not in _EXTERNAL_DATA:
        raise ValueError("external_data must be one of %s, got %r"
                         % (", ".join(_EXTERNAL_DATA), external_data))
    path = os.fspath(path)
    module.save_onnx(path, integer_weights, float(activation_amax),
                     external_data, int(opset), bool(matmul_nbits))
    return path


def run_pipeline(module: Module, pipeline: str) -> Module:
    """Runs a pass pipeline, in place, as ``qdq-opt --pass-pipeline`` does:
    ``"builtin.module(insert-qdq{cases=resnet-v1},canonicalize)"`` or the
    bare ``"insert-qdq{cases=resnet-v1},canonicalize"``. Returns `module`.
    """
    module.run_pipeline(pipeline)
    return module


def __getattr__(name):
    # Deprecated: load_module is quant_qdq.loading's (it sits above the
    # front ends, which this module sits below); the old name resolves on
    # use, with a warning, for one release.
    if name == "load_module":
        import warnings
        warnings.warn("quant_qdq.ir.load_module is now "
                      "quant_qdq.load_module (quant_qdq.loading)",
                      DeprecationWarning, stacklevel=2)
        from .loading import load_module
        return load_module
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
