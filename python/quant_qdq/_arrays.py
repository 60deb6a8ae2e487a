"""Arrays as the C++ libraries take them, whatever the user holds.

Calibration data and comparison inputs arrive as numpy arrays, torch
tensors or paths of .npy files; the libraries read C-contiguous arrays of
the model's input types.
"""

import os
import sys

__all__ = ["is_array", "is_path", "to_array"]


def is_path(value) -> bool:
    return isinstance(value, (str, os.PathLike))


def is_array(value) -> bool:
    """A numpy array or a torch tensor (torch is not imported here)."""
    import numpy as np
    torch = sys.modules.get("torch")
    return isinstance(value, np.ndarray) or (
        torch is not None and isinstance(value, torch.Tensor))


def to_array(batch):
    """`batch` as a C-contiguous numpy array: token ids and masks stay
    integers; any float becomes f32, the type float models take."""
    import numpy as np
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(batch, torch.Tensor):
        batch = batch.detach().cpu().numpy()
    batch = np.asarray(batch)
    if np.issubdtype(batch.dtype, np.integer) or batch.dtype == np.bool_:
        return np.ascontiguousarray(batch)
    return np.ascontiguousarray(batch, dtype=np.float32)
