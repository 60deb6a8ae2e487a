"""Imported before torch by the benchmarks whose figures RESULTS.md records
and the benchmark tests hold them to (bench/common/recorded.py): their
models are trained here, and training must take the same arithmetic on
every host for the figures to be the same.

PyTorch runs convolutions through oneDNN, which picks its kernels by the
processor: on hosts with AVX-512 the digits CNN trained to other weights
than with AVX2, and its int4 figures moved by 3 dB (per channel 13.5 dB
against 16.6). Capping oneDNN and PyTorch's own kernels at AVX2, which
every host of this project has, makes the paths the same (TensorFlow
bundles oneDNN too and takes the same cap). Only these
processes are capped: the benchmarks that time PyTorch do not import this.
"""
import os

os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX2")
os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")
