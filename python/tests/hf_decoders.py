"""Hugging Face decoders with random weights, as their users export them:
Llama, Qwen2, Phi3 and GPT-2 built by transformers from small configs
(nothing comes from the hub) and exported by Optimum's ONNX exporter
(task text-generation-with-past: one model that takes `input_ids`,
`attention_mask`, `position_ids` and `past_key_values.<layer>.key|value`,
possibly empty, and gives `logits` and `present.<layer>.key|value`).
Shared by test/Execution/Inputs/hf_decoders_vs_ort.py and bench/llm/hf.py.
"""

import os
from pathlib import Path

import numpy as np

# transformers imports TensorFlow when it is installed (Keras's tests need
# it); nothing here uses it, and it costs seconds and log lines.
os.environ.setdefault("USE_TF", "0")
os.environ.setdefault("USE_TORCH", "1")
# Everything is built here: never ask the hub (a CI machine may not reach
# it, and a lookup there would only wait).
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ARCHITECTURES = ("llama", "qwen2", "phi3", "gpt2")

# Sizes: "tiny" for the tests, "small" for the bench, "large" for a model
# over 2 GiB (603M parameters, 2.41 GB of external data: TinyLlama's width
# and vocabulary, 10 blocks).
SIZES = {
    "tiny": dict(hidden=64, mlp=128, layers=2, heads=4, vocab=256),
    "small": dict(hidden=256, mlp=768, layers=4, heads=8, vocab=2048),
    "large": dict(hidden=2048, mlp=5632, layers=10, heads=16, vocab=32000),
}


def make(name, size="tiny", seed=0, **overrides):
    """The model, in eval mode; overrides replace entries of SIZES[size]."""
    import torch
    import transformers as hf

    shape = dict(SIZES[size], **overrides)
    hidden, mlp, layers = shape["hidden"], shape["mlp"], shape["layers"]
    heads, vocab = shape["heads"], shape["vocab"]
    torch.manual_seed(seed)
    common = dict(vocab_size=vocab, hidden_size=hidden, intermediate_size=mlp,
                  num_hidden_layers=layers, num_attention_heads=heads,
                  max_position_embeddings=256)
    if name == "llama":  # grouped-query attention: half as many key/value heads
        model = hf.LlamaForCausalLM(hf.LlamaConfig(num_key_value_heads=heads // 2, **common))
    elif name == "qwen2":  # biases on q, k and v; grouped-query attention
        model = hf.Qwen2ForCausalLM(hf.Qwen2Config(num_key_value_heads=heads // 2, **common))
    elif name == "phi3":  # fused qkv and gate/up projections, split by Slice
        model = hf.Phi3ForCausalLM(hf.Phi3Config(
            num_key_value_heads=heads, pad_token_id=0, bos_token_id=1, eos_token_id=2,
            **common))
    elif name == "gpt2":  # LayerNorm, learned positions, tanh GELU, Conv1D (Gemm-like)
        model = hf.GPT2LMHeadModel(hf.GPT2Config(
            n_embd=hidden, n_inner=mlp, n_layer=layers, n_head=heads, vocab_size=vocab,
            n_positions=256))
    else:
        raise ValueError(f"unknown architecture {name!r}; one of {ARCHITECTURES}")
    return model.eval()


def export(name, folder, size="tiny", opset=17, seed=0, validate=True, **overrides):
    """Saves the model to folder/hf and exports it with Optimum into
    folder/onnx; returns the path of the ONNX model."""
    import warnings

    from optimum.exporters.onnx import main_export

    folder = Path(folder)
    make(name, size, seed, **overrides).save_pretrained(folder / "hf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        main_export(str(folder / "hf"), output=str(folder / "onnx"),
                    task="text-generation-with-past", opset=opset,
                    library_name="transformers", do_validation=validate)
    return folder / "onnx" / "model.onnx"


def cache_inputs(path):
    """{past input name: (key/value heads, head size)} of an exported model."""
    import onnx

    graph = onnx.load(str(path), load_external_data=False).graph
    return {i.name: tuple(d.dim_value for d in i.type.tensor_type.shape.dim[1::2])
            for i in graph.input if i.name.startswith("past_key_values")}


def step_feeds(path, ids, mask, past):
    """The model's inputs for new tokens `ids` [batch, new] after `past`
    ({past name: array}, or None for an empty cache), with `mask` covering
    past and new tokens (0: padding); positions as transformers' generate()
    derives them from the mask."""
    batch = ids.shape[0]
    if past is None:
        past = {n: np.zeros((batch, heads, 0, size), np.float32)
                for n, (heads, size) in cache_inputs(path).items()}
    positions = np.cumsum(mask, axis=1) - 1
    positions[mask == 0] = 1
    return {"input_ids": ids.astype(np.int64), "attention_mask": mask.astype(np.int64),
            "position_ids": positions[:, -ids.shape[1]:].astype(np.int64), **past}


def prefill_and_decode(path, batch=2, prompt=7, new=1, padding=2, vocab=256, seed=0):
    """Two sets of inputs: a prompt of `prompt` tokens whose first row is
    left-padded by `padding`, and the decode step of `new` tokens after it,
    whose cache is what ONNX Runtime's run of the prompt wrote."""
    import onnxruntime as ort

    rng = np.random.default_rng(seed)
    mask = np.ones((batch, prompt), np.int64)
    mask[0, :padding] = 0
    prefill = step_feeds(path, rng.integers(0, vocab, (batch, prompt)), mask, None)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    outputs = dict(zip([o.name for o in session.get_outputs()], session.run(None, prefill)))
    past = {n: outputs[n.replace("past_key_values", "present")] for n in cache_inputs(path)}
    mask = np.concatenate([mask, np.ones((batch, new), np.int64)], axis=1)
    decode = step_feeds(path, rng.integers(0, vocab, (batch, new)), mask, past)
    return prefill, decode


def calibration(path, batch=8, sequence=32, vocab=256, seed=1):
    """Prompts of random tokens from an empty cache: calibration data."""
    rng = np.random.default_rng(seed)
    return step_feeds(path, rng.integers(0, vocab, (batch, sequence)),
                      np.ones((batch, sequence), np.int64), None)
