"""Keras models: what is one, loading one, and what cannot be imported.

Keras itself is not imported here unless the user did (or loads a file):
a model can only be a keras.Model if Keras is loaded.
"""

import errno
import os
import sys

from .._quant_qdq import QuantQDQError

__all__ = ["is_keras_model", "is_keras_file", "keras_flavour",
           "load_keras_model", "KerasImportError"]

# The files Keras saves: Keras 3's archive, HDF5 (either Keras), and
# tf.keras's SavedModel folders.
_KERAS_SUFFIXES = (".keras", ".h5", ".hdf5")


class KerasImportError(QuantQDQError, ValueError):
    """A Keras model the translation cannot represent."""


def keras_modules():
    """The Keras implementations loaded in this process: Keras 3 and tf.keras
    (tf_keras). Neither is imported here unless the user did."""
    return [sys.modules[name] for name in ("keras", "tf_keras")
            if name in sys.modules]


def is_keras_model(model) -> bool:
    """Whether `model` is a keras.Model of Keras 3 or tf.keras."""
    return any(isinstance(model, k.Model) for k in keras_modules())


def is_keras_file(path) -> bool:
    """Whether `path` names a saved Keras model (by its suffix, or a
    folder: a SavedModel)."""
    path = os.fspath(path)
    return path.endswith(_KERAS_SUFFIXES) or os.path.isdir(path)


def load_keras_model(path):
    """Loads a .keras or .h5 file or a SavedModel folder with the Keras that
    wrote it: Keras 3 for .keras, tf.keras for SavedModels, Keras 3 and
    then tf.keras for .h5. A SavedModel without Keras metadata loads as
    the TensorFlow object it holds (saved_graph.py imports those)."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    loaders = []
    if os.path.isdir(path):
        loaders = ["tf_keras"]
    elif path.endswith(".keras"):
        loaders = ["keras"]
    elif path.endswith((".h5", ".hdf5")):
        loaders = ["keras", "tf_keras"]
    else:
        raise ValueError("%s: not a Keras model (.keras, .h5 or a SavedModel "
                         "folder)" % path)
    if os.path.isdir(path) and not os.path.exists(
            os.path.join(path, "keras_metadata.pb")):
        # No Keras model inside (Keras 3's model.export writes such folders):
        # the TensorFlow object, which import_keras converts as a graph.
        import tensorflow as tf
        try:
            return tf.saved_model.load(path)
        except Exception as e:  # TensorFlow raises many kinds on a bad file.
            raise ValueError("%s: cannot load the SavedModel: %s: %s"
                             % (path, type(e).__name__, e)) from e
    errors = []
    for name in loaders:
        try:
            module = __import__(name)
            # Models saved after quantization-aware training hold
            # qat_layers' or TFMOT's API's layers: registered with this
            # Keras first.
            from .qat_layers import layers_of
            from .quantize_wrapper import layers_of as tfmot_layers_of
            layers_of(name)
            tfmot_layers_of(module)
            return module.models.load_model(path, compile=False)
        except ImportError as e:
            errors.append("%s: %s" % (name, e))
        except Exception as e:  # Keras raises many kinds on a bad file.
            errors.append("%s: %s: %s" % (name, type(e).__name__, e))
    raise ValueError("%s: cannot load the Keras model:\n  %s"
                     % (path, "\n  ".join(errors)))


def keras_flavour(model) -> str:
    """"keras" (Keras 3) or "tf_keras" (tf.keras), the Keras `model` is
    built with."""
    return ("tf_keras" if type(model).__module__.startswith("tf_keras")
            else "keras")
