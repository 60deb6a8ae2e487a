"""The settings several layers of the package check, in one place.

Their values are the C++ passes' (docs/Calibration.md, docs/Python.md);
the checks raise the ValueError the user sees before any work starts.
"""

from typing import Optional

__all__ = ["QUANTIZATION_MODES", "CALIBRATION_METHODS",
           "PIPELINE_CALIBRATION_METHODS", "RANGE_TRACKING",
           "check_quantization_mode", "check_calibration_method",
           "check_calibration_settings", "check_range_tracking",
           "checked_bits"]

# NVIDIA's toolkit's modes: the default table overridden by the spec, or
# only the layers the spec (or the cases) name.
QUANTIZATION_MODES = ("full", "partial")

CALIBRATION_METHODS = ("max", "percentile", "entropy", "mse", "last-value",
                       "moving-average")
# quantize_model's calibration also chooses per tensor by output error.
PIPELINE_CALIBRATION_METHODS = CALIBRATION_METHODS + ("auto",)

# How quantization-aware training tracks activation ranges: the toolkit's
# last value, or TFMOT's moving average.
RANGE_TRACKING = ("last_value", "moving_average")


def check_quantization_mode(mode: str) -> None:
    if mode not in QUANTIZATION_MODES:
        raise ValueError("quantization_mode must be 'full' or 'partial', "
                         "got %r" % (mode,))


def check_calibration_method(method: str, allow_auto: bool = False) -> None:
    methods = PIPELINE_CALIBRATION_METHODS if allow_auto else CALIBRATION_METHODS
    if method not in methods:
        raise ValueError("calibration_method must be one of %s, got %r"
                         % (", ".join(methods), method))


def check_calibration_settings(method: str, percentile: float, bins: int,
                               batch_size: Optional[int],
                               allow_auto: bool = False) -> None:
    check_calibration_method(method, allow_auto)
    if not 0 < percentile <= 100:
        raise ValueError("percentile must be in (0, 100], got %r"
                         % (percentile,))
    if bins < 1 or (batch_size is not None and batch_size < 1):
        raise ValueError("bins and batch_size must be positive")


def check_range_tracking(range_tracking: str) -> None:
    if range_tracking not in RANGE_TRACKING:
        raise ValueError("range_tracking must be one of %s, got %r"
                         % (", ".join(RANGE_TRACKING), range_tracking))


def checked_bits(num_bits) -> int:
    """`num_bits` as an int of 2 to 16, the widths quantizers take; a saved
    model may say anything (1e30, 2.5, "8"), which is refused."""
    if isinstance(num_bits, bool) or not isinstance(num_bits, (int, float)) \
            or num_bits != int(num_bits) or not 2 <= int(num_bits) <= 16:
        raise ValueError("num_bits must be an integer of 2 to 16, got %r"
                         % (num_bits,))
    return int(num_bits)
