"""Pieces the benchmarks share: the models they measure (models.py) and how
they run them in ONNX Runtime (ort.py), and what the QAT benchmarks share
(digits_qat.py)."""
