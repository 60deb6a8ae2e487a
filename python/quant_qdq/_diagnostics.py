"""Warnings of the C++ libraries, attributed to the user's code.

The extension calls warn() for every warning diagnostic; the warning points
at the first frame outside this package, where the user called the API.
"""

import os
import sys
import warnings

from ._quant_qdq import QuantQDQWarning

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _in_package(filename: str) -> bool:
    """Whether code of `filename` is this package's (subpackages too)."""
    folder = os.path.dirname(os.path.abspath(filename))
    return folder == _PACKAGE_DIR or folder.startswith(_PACKAGE_DIR + os.sep)


def warn(message: str) -> None:
    level = 2  # The caller of the extension function.
    frame = sys._getframe(1)
    while frame is not None and _in_package(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    warnings.warn(message, QuantQDQWarning, stacklevel=level)
