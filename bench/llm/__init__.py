"""A byte-level Llama-shaped language model trained in-tree on real text
(lm.py, train.py), for measuring quantization's effect on perplexity."""
