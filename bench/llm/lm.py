"""A small Llama-shaped byte-level language model, trained in-tree on real
English text, for measuring what quantization does to a language model's
perplexity.

Text: the docstrings of the Python standard library that Debian's
libpython3.11-stdlib ships (/usr/lib/python3.11, the interpreter's own
`stdlib` path): modules, classes and functions, ~1.4 MB of English prose
with its doctest examples. The packages Debian ships apart (tkinter,
idlelib, lib2to3, distutils, ensurepip) and the test suites are left out,
so that the file set does not depend on what else is installed. Each file
falls, by the CRC-32 of its path, in one of 20 buckets: 0 and 1 are held
out for evaluation, 2 for calibration, the rest are the training text;
no file is in two sets. Tokens are bytes (vocabulary 256, no tokenizer).

Model: token embedding, `layers` pre-norm decoder blocks (RMSNorm written
out, rotary position embeddings, grouped-query attention with the key and
value heads repeated, a causal mask from torch.triu, a SwiGLU MLP), a final
RMSNorm and an untied LM head, written as Llama's modeling code writes it
(the convention of python/tests/transformer_models.py's Decoder): ONNX
export gives MatMul, Gather, Pow/ReduceMean/Sqrt/Div/Mul, Slice/Neg/Concat,
Expand/Reshape/Transpose, Trilu, Softmax, Sigmoid and Add.

Evaluation runs the exported model in ONNX Runtime with its graph rewrites
off (common/ort.py): `perplexity` is exp of the mean next-token
cross-entropy over every position but the last of each sequence.

`export_cached` writes the same weights as a decode step with a key/value
cache (past_key_i/past_value_i in, present_key_i/present_value_i out, as
Optimum exports decoders); `decode_logits` runs it token by token from an
empty cache, as generation would.
"""
import ast
import hashlib
import math
import sys
import sysconfig
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import ort  # noqa: E402

# Standard-library folders Debian ships in packages of their own, or that
# hold tests or installed packages rather than the library.
EXCLUDED = {"test", "tests", "idle_test", "idlelib", "tkinter", "turtledemo",
            "lib2to3", "distutils", "ensurepip", "site-packages",
            "dist-packages", "__pycache__", "lib-dynload"}
EVALUATION_BUCKETS, CALIBRATION_BUCKETS, BUCKETS = {0, 1}, {2}, 20


@dataclass(frozen=True)
class Config:
    vocab: int = 256
    hidden: int = 128
    heads: int = 4
    kv_heads: int = 2
    layers: int = 4
    mlp: int = 384
    context: int = 128


# --- data ---------------------------------------------------------------

def stdlib_root():
    return Path(sysconfig.get_paths()["stdlib"])


def text_files(root=None):
    """The standard library's .py files (paths relative to `root`, sorted),
    less the folders of EXCLUDED and the files Debian generates or adds."""
    root = Path(root or stdlib_root())
    files = []
    for path in root.rglob("*.py"):
        relative = path.relative_to(root)
        if EXCLUDED & set(relative.parts[:-1]) or relative.parts[0].startswith(
                ("config-", "_sysconfigdata")) or relative.name in (
                "sitecustomize.py", "_distutils_system_mod.py"):
            continue
        files.append(relative.as_posix())
    return sorted(files)


def docstrings(path):
    """The docstrings of a module and of its classes and functions, in the
    order ast.walk meets them, cleaned (inspect.cleandoc), as UTF-8."""
    tree = ast.parse(Path(path).read_bytes())
    texts = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                             ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=True)
            if text:
                texts.append(text)
    return "\n\n".join(texts).encode("utf-8")


def bucket(relative_path):
    return zlib.crc32(relative_path.encode()) % BUCKETS


def corpus(root=None):
    """{"train", "calibration", "evaluation"}: each set's files' docstrings
    joined by blank lines, as a uint8 array; and the file list."""
    root = Path(root or stdlib_root())
    files = text_files(root)
    parts = {"train": [], "calibration": [], "evaluation": []}
    for name in files:
        b = bucket(name)
        which = ("evaluation" if b in EVALUATION_BUCKETS else
                 "calibration" if b in CALIBRATION_BUCKETS else "train")
        text = docstrings(root / name)
        if text:
            parts[which].append(text)
    return ({k: np.frombuffer(b"\n\n".join(v), dtype=np.uint8)
             for k, v in parts.items()}, files)


def data_digest(texts):
    h = hashlib.sha256()
    for k in sorted(texts):
        h.update(k.encode())
        h.update(texts[k].tobytes())
    return h.hexdigest()


def windows(text, count, context):
    """`count` non-overlapping windows of `context` bytes spread evenly over
    `text`, as int64 [count, context] (fewer if the text is shorter)."""
    chunks = len(text) // context
    starts = np.unique(np.linspace(0, chunks - 1, min(count, chunks))
                       .round().astype(np.int64)) * context
    return np.stack([text[s:s + context] for s in starts]).astype(np.int64)


def unigram_bits(train, evaluation):
    """Cross-entropy, in bits per byte, of `evaluation`'s bytes under the
    byte frequencies of `train` (add-one smoothed): the baseline a model
    with no context reaches."""
    counts = np.bincount(train, minlength=256).astype(np.float64) + 1
    p = counts / counts.sum()
    return float(-np.log2(p[evaluation]).mean())


# --- model --------------------------------------------------------------

def make_model(config, cached=False):
    """The Decoder of `config` (its CachedDecoder, the decode step with a
    key/value cache, when `cached`), its classes defined here so that this
    module imports without torch for evaluation alone."""
    import torch
    import torch.nn as nn

    class RMSNorm(nn.Module):
        """Llama's RMSNorm, written out (Pow, ReduceMean, Add, Sqrt,
        Reciprocal or Div, Mul in ONNX)."""

        def __init__(self, hidden, eps=1e-6):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(hidden))
            self.eps = eps

        def forward(self, x):
            variance = x.pow(2).mean(-1, keepdim=True)
            return self.weight * (x * torch.rsqrt(variance + self.eps))

    class Linear(nn.Linear):
        """nn.Linear (bias-free here) whose training pass runs as a 1x1
        convolution: Debian's torch runs F.linear on the reference BLAS
        (5 GFLOP/s on one core), a convolution on oneDNN (33 GFLOP/s);
        evaluation and export use F.linear, which ONNX writes as MatMul."""

        def forward(self, x):
            if not self.training:
                return super().forward(x)
            y = nn.functional.conv2d(x.reshape(-1, x.shape[-1], 1, 1),
                                     self.weight[:, :, None, None], self.bias)
            return y.reshape(*x.shape[:-1], self.out_features)

    def rotate_half(x):
        half = x.shape[-1] // 2
        return torch.cat((-x[..., half:], x[..., :half]), dim=-1)

    class Block(nn.Module):
        """Pre-norm grouped-query attention with rotary position embeddings
        and a causal mask, then a SwiGLU MLP."""

        def __init__(self, c):
            super().__init__()
            self.heads, self.kv_heads = c.heads, c.kv_heads
            self.head_dim = c.hidden // c.heads
            self.attention_norm = RMSNorm(c.hidden)
            self.q = Linear(c.hidden, c.heads * self.head_dim, bias=False)
            self.k = Linear(c.hidden, c.kv_heads * self.head_dim, bias=False)
            self.v = Linear(c.hidden, c.kv_heads * self.head_dim, bias=False)
            self.o = Linear(c.heads * self.head_dim, c.hidden, bias=False)
            self.mlp_norm = RMSNorm(c.hidden)
            self.gate = Linear(c.hidden, c.mlp, bias=False)
            self.up = Linear(c.hidden, c.mlp, bias=False)
            self.down = Linear(c.mlp, c.hidden, bias=False)

        def forward(self, x, cos, sin, mask, past=None):
            """The block's output; with `past` (the keys and values of
            the earlier positions, [batch, kv_heads, past, head_dim] each),
            also the keys and values with this call's positions appended."""
            b, s, _ = x.shape
            heads, kv_heads, d = self.heads, self.kv_heads, self.head_dim
            h = self.attention_norm(x)
            q = self.q(h).view(b, s, heads, d).transpose(1, 2)
            k = self.k(h).view(b, s, kv_heads, d).transpose(1, 2)
            v = self.v(h).view(b, s, kv_heads, d).transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            # The positions attended to: `s` without a cache, so that the
            # prefill export stays the graph (and the bytes) it was.
            t = s
            if past is not None:
                k = torch.cat((past[0], k), dim=2)
                v = torch.cat((past[1], v), dim=2)
                t = k.shape[2]
            present = (k, v)
            # Key/value heads repeated for the query heads that share them.
            repeat = heads // kv_heads
            k = k[:, :, None].expand(b, kv_heads, repeat, t, d)
            k = k.reshape(b, heads, t, d)
            v = v[:, :, None].expand(b, kv_heads, repeat, t, d)
            v = v.reshape(b, heads, t, d)
            scores = q @ k.transpose(2, 3) / math.sqrt(d) + mask
            attention = torch.softmax(scores, dim=-1) @ v
            attention = attention.transpose(1, 2).reshape(b, s, -1)
            x = x + self.o(attention)
            h = self.mlp_norm(x)
            x = x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))
            return x if past is None else (x, *present)

    class Decoder(nn.Module):
        """Token ids [batch, sequence] in, next-token logits [batch,
        sequence, vocab] at every position out. The causal mask comes from
        torch.triu (ONNX Trilu), with Llama's most negative float rather
        than -inf."""

        def __init__(self, c):
            super().__init__()
            self.tokens = nn.Embedding(c.vocab, c.hidden)
            self.blocks = nn.ModuleList(Block(c) for _ in range(c.layers))
            self.norm = RMSNorm(c.hidden)
            self.head = Linear(c.hidden, c.vocab, bias=False)
            head_dim = c.hidden // c.heads
            self.register_buffer("inv_freq", 1.0 / 10000 ** (
                torch.arange(0, head_dim, 2).float() / head_dim))
            for m in self.modules():  # GPT-2 / Llama initialisation
                if isinstance(m, (nn.Linear, nn.Embedding)):
                    nn.init.normal_(m.weight, std=0.02)
            for block in self.blocks:  # residual branches scaled by depth
                for m in (block.o, block.down):
                    nn.init.normal_(m.weight,
                                    std=0.02 / math.sqrt(2 * c.layers))

        def forward(self, ids):
            s = ids.shape[1]
            positions = torch.arange(s).float()
            freqs = positions[:, None] * self.inv_freq[None, :]
            angles = torch.cat((freqs, freqs), dim=-1)
            cos, sin = angles.cos(), angles.sin()
            lowest = torch.finfo(torch.float32).min
            mask = torch.triu(torch.full((s, s), lowest), diagonal=1)
            x = self.tokens(ids)
            for block in self.blocks:
                x = block(x, cos, sin, mask)
            return self.head(self.norm(x))

    class CachedDecoder(Decoder):
        """The decode step with a key/value cache, as Optimum and
        onnxruntime-genai export decoders (and python/tests/
        transformer_models.py's CachedDecoder): token ids of the new
        positions [batch, new] and, per block i, the keys and values of
        the `past` earlier ones (past_key_i, past_value_i: [batch,
        kv_heads, past, head_dim], rotary embedding applied) in; the logits
        of the new positions and the keys and values with theirs appended
        (present_key_i, present_value_i: [batch, kv_heads, past + new,
        head_dim]) out. Its parameters are the Decoder's, so the trained
        state dict loads into it."""

        def forward(self, ids, *past):
            s, p = ids.shape[1], past[0].shape[2]
            positions = torch.arange(p, p + s).float()
            freqs = positions[:, None] * self.inv_freq[None, :]
            angles = torch.cat((freqs, freqs), dim=-1)
            cos, sin = angles.cos(), angles.sin()
            lowest = torch.finfo(torch.float32).min
            mask = torch.triu(torch.full((s, p + s), lowest), diagonal=p + 1)
            x = self.tokens(ids)
            presents = []
            for i, block in enumerate(self.blocks):
                x, k, v = block(x, cos, sin, mask,
                                (past[2 * i], past[2 * i + 1]))
                presents += [k, v]
            return (self.head(self.norm(x)), *presents)

    return (CachedDecoder if cached else Decoder)(config)


def export(model, path, config, opset=17):
    """`model` to ONNX: input_ids int64 [batch, sequence] in, logits
    [batch, sequence, vocab] out, both axes dynamic."""
    import torch
    model.eval()
    axes = {0: "batch", 1: "sequence"}
    torch.onnx.export(model, torch.zeros(1, config.context, dtype=torch.int64),
                      str(path), opset_version=opset,
                      input_names=["input_ids"], output_names=["logits"],
                      dynamic_axes={"input_ids": axes, "logits": axes})


def cache_names(config, prefix):
    """past_key_0, past_value_0, past_key_1, ... (`prefix` "past" or
    "present"): the cache's inputs or outputs, a key and a value per block,
    in the order the decode step takes and returns them."""
    return [f"{prefix}_{kind}_{i}" for i in range(config.layers)
            for kind in ("key", "value")]


def export_cached(state_dict, path, config, opset=17):
    """The decode step (make_model's CachedDecoder) with the weights of
    `state_dict` (train.py's model.pt) to ONNX: input_ids int64 [batch,
    new] and past_key_i/past_value_i float [batch, kv_heads, past,
    head_dim] in; logits [batch, new, vocab] and present_key_i/
    present_value_i [batch, kv_heads, past + new, head_dim] out; batch,
    new and past dynamic."""
    import torch
    model = make_model(config, cached=True)
    model.load_state_dict(state_dict)
    model.eval()
    head_dim = config.hidden // config.heads
    past = [torch.zeros(1, config.kv_heads, 3, head_dim)
            for _ in range(2 * config.layers)]
    cache = {0: "batch", 2: "past"}
    axes = {"input_ids": {0: "batch", 1: "new"},
            "logits": {0: "batch", 1: "new"}}
    axes.update({n: cache for n in cache_names(config, "past")})
    axes.update({n: {0: "batch", 2: "total"}
                 for n in cache_names(config, "present")})
    torch.onnx.export(model, (torch.zeros(1, 2, dtype=torch.int64), *past),
                      str(path), opset_version=opset,
                      input_names=["input_ids"] + cache_names(config, "past"),
                      output_names=["logits"] + cache_names(config, "present"),
                      dynamic_axes=axes)


# --- evaluation ---------------------------------------------------------

def next_token_nll(logits, tokens):
    """Mean next-token cross-entropy, in nats, of logits [n, s, vocab] for
    tokens [n, s]: position t predicts token t + 1, for every t but the
    last; float64 throughout."""
    logits = np.asarray(logits, dtype=np.float64)[:, :-1]
    top = logits.max(-1, keepdims=True)
    log_z = np.log(np.exp(logits - top).sum(-1)) + top[..., 0]
    target = np.take_along_axis(logits, tokens[:, 1:, None], -1)[..., 0]
    return float((log_z - target).mean())


def logits(onnx_path, tokens, batch=16, threads=1):
    """The model's logits [n, s, vocab] on tokens [n, s], in ONNX Runtime
    with its graph rewrites off, `batch` sequences a run."""
    session = ort.session(onnx_path, optimize=False, threads=threads)
    name = session.get_inputs()[0].name
    return np.concatenate([session.run(None, {name: tokens[i:i + batch]})[0]
                           for i in range(0, len(tokens), batch)])


def perplexity(onnx_path, tokens, batch=16, threads=1):
    """exp of the mean next-token cross-entropy of the model at `onnx_path`
    on tokens [n, s] (int64), every position but the last of each sequence
    predicting the next, averaged over all of them; in ONNX Runtime with
    its graph rewrites off."""
    return math.exp(next_token_nll(logits(onnx_path, tokens, batch, threads),
                                   tokens))


def decode_logits(onnx_path, tokens, threads=1):
    """The logits [n, s, vocab] of a decode step (export_cached's
    interface) fed tokens [n, s] one position at a time, all n sequences
    in one batch: the first step from an empty cache (past length 0), each
    next one from the present_* the last returned; in ONNX Runtime with
    its graph rewrites off."""
    session = ort.session(onnx_path, optimize=False, threads=threads)
    inputs = session.get_inputs()
    past = {i.name: np.zeros((len(tokens), i.shape[1], 0, i.shape[3]),
                             np.float32) for i in inputs[1:]}
    outputs = [o.name for o in session.get_outputs()]
    steps = []
    for t in range(tokens.shape[1]):
        logits, *present = session.run(
            outputs, {inputs[0].name: tokens[:, t:t + 1], **past})
        steps.append(logits)
        past = {name.replace("present", "past", 1): value
                for name, value in zip(outputs[1:], present)}
    return np.concatenate(steps, axis=1)


def bits_per_byte(perplexity_value):
    return math.log2(perplexity_value)


def top1_agreement(logits_a, logits_b):
    """Percentage of positions where two models' logits [..., vocab] have
    the same argmax."""
    a, b = np.asarray(logits_a), np.asarray(logits_b)
    if a.shape != b.shape:
        raise ValueError(f"logits of shapes {a.shape} and {b.shape}")
    return 100.0 * float((a.argmax(-1) == b.argmax(-1)).mean())

