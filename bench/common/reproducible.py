"""Imported before torch or TensorFlow by the benchmarks whose figures
RESULTS.md records and the benchmark tests hold them to
(bench/common/recorded.py): their models are trained here, and training
must take the same arithmetic on every machine for the figures to be the
same.

PyTorch runs convolutions through oneDNN, which picks its kernels by the
processor: on hosts with AVX-512 the digits CNN trained to other weights
than with AVX2, and its int4 figures moved by 3 dB (per channel 13.5 dB
against 16.6). Capping oneDNN and PyTorch's own kernels at AVX2, which
every host of this project has, makes the kernels the same (TensorFlow
bundles oneDNN too and takes the same cap); one thread (the functions
below) makes the order of their sums the same on any number of cores.
PyTorch's BLAS is the system's reference BLAS, the same code everywhere.
Only these processes are pinned: the benchmarks that time PyTorch do not
import this.
"""
import os

os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX2")
os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")


def single_threaded_torch():
    """PyTorch's kernels on one thread."""
    import torch
    torch.set_num_threads(1)


def deterministic_tensorflow():
    """TensorFlow's kernels on one thread, its deterministic ones."""
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.experimental.enable_op_determinism()
