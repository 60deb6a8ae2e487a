"""Small transformers and hybrids with random weights, shared by the
transformer tests here and by test/Execution/Inputs/transformers_vs_ort.py:
torchvision's ViT, Swin and ConvNeXt at 32x32, a BERT-like post-norm GELU
encoder built from torch.nn.TransformerEncoder, and a Llama-shaped decoder
written out as Llama's modeling code writes it."""

import math

import torch
import torch.nn as nn
from torchvision.models.convnext import CNBlockConfig, ConvNeXt
from torchvision.models.swin_transformer import SwinTransformer
from torchvision.models.vision_transformer import VisionTransformer

NAMES = ("vit", "swin", "convnext", "encoder", "decoder", "decoder-cached")


class Encoder(nn.Module):
    """Token and position embeddings, a post-norm GELU encoder, and a
    classifier on the first token (the BERT layout). Takes token ids below
    100, sequences up to 64."""

    def __init__(self, vocab=100, hidden=32, heads=4, layers=2):
        super().__init__()
        self.tokens = nn.Embedding(vocab, hidden)
        self.positions = nn.Embedding(64, hidden)
        layer = nn.TransformerEncoderLayer(hidden, heads, 2 * hidden,
                                           dropout=0.0, activation="gelu",
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers,
                                             enable_nested_tensor=False)
        self.classifier = nn.Linear(hidden, 3)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.encoder(self.tokens(ids) + self.positions(positions))
        return self.classifier(x[:, 0])


class RMSNorm(nn.Module):
    """Llama's RMSNorm, written out: torch.onnx exports Pow, ReduceMean,
    Add, Sqrt, Reciprocal (or Div), Mul."""

    def __init__(self, hidden, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(hidden))
        self.eps = eps

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(variance + self.eps))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class DecoderBlock(nn.Module):
    """Pre-norm grouped-query attention with rotary position embeddings and
    a causal mask, then a SwiGLU MLP."""

    def __init__(self, hidden, heads, kv_heads, mlp):
        super().__init__()
        self.heads, self.kv_heads = heads, kv_heads
        self.head_dim = hidden // heads
        self.attention_norm = RMSNorm(hidden)
        self.q = nn.Linear(hidden, heads * self.head_dim, bias=False)
        self.k = nn.Linear(hidden, kv_heads * self.head_dim, bias=False)
        self.v = nn.Linear(hidden, kv_heads * self.head_dim, bias=False)
        self.o = nn.Linear(heads * self.head_dim, hidden, bias=False)
        self.mlp_norm = RMSNorm(hidden)
        self.gate = nn.Linear(hidden, mlp, bias=False)
        self.up = nn.Linear(hidden, mlp, bias=False)
        self.down = nn.Linear(mlp, hidden, bias=False)

    def forward(self, x, cos, sin, mask, past=None):
        """The block's output; with `past` (the keys and values of earlier
        positions), also the keys and values with this step's appended."""
        b, s, _ = x.shape
        h = self.attention_norm(x)
        q = self.q(h).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k(h).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v(h).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if past is not None:
            k = torch.cat((past[0], k), dim=2)
            v = torch.cat((past[1], v), dim=2)
        present = (k, v)
        # Key/value heads repeated for the query heads that share them.
        repeat, t = self.heads // self.kv_heads, k.shape[2]
        k = k[:, :, None].expand(b, self.kv_heads, repeat, t, self.head_dim)
        k = k.reshape(b, self.heads, t, self.head_dim)
        v = v[:, :, None].expand(b, self.kv_heads, repeat, t, self.head_dim)
        v = v.reshape(b, self.heads, t, self.head_dim)
        scores = q @ k.transpose(2, 3) / math.sqrt(self.head_dim) + mask
        attention = torch.softmax(scores, dim=-1) @ v
        attention = attention.transpose(1, 2).reshape(b, s, -1)
        x = x + self.o(attention)
        h = self.mlp_norm(x)
        x = x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))
        return x if past is None else (x, *present)


class Decoder(nn.Module):
    """A Llama-shaped language model: token embeddings, decoder blocks, a
    final RMSNorm and the LM head; token ids in, next-token logits at every
    position out. The causal mask comes from torch.triu (ONNX Trilu), with
    Llama's most negative float rather than -inf."""

    def __init__(self, vocab=100, hidden=32, heads=4, kv_heads=2, layers=2,
                 mlp=64):
        super().__init__()
        self.tokens = nn.Embedding(vocab, hidden)
        self.blocks = nn.ModuleList(DecoderBlock(hidden, heads, kv_heads, mlp)
                                    for _ in range(layers))
        self.norm = RMSNorm(hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        head_dim = hidden // heads
        self.register_buffer("inv_freq", 1.0 / 10000 ** (
            torch.arange(0, head_dim, 2).float() / head_dim))

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
    """The decoder's decode step with a key/value cache, as Optimum and
    onnxruntime-genai export decoders: token ids of the new positions and,
    per block, the keys and values of the earlier ones (past_key_<i>,
    past_value_<i>: [batch, kv_heads, past, head_dim]) in; the logits and
    the keys and values with the new positions appended (present_key_<i>,
    present_value_<i>) out."""

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
            x, k, v = block(x, cos, sin, mask, (past[2 * i], past[2 * i + 1]))
            presents += [k, v]
        return (self.head(self.norm(x)), *presents)


def make(name):
    """The model `name` (one of NAMES), in eval mode. Image models take
    3x32x32 images; the encoder and the decoder take int64 token ids."""
    if name == "vit":
        model = VisionTransformer(image_size=32, patch_size=8, num_layers=2,
                                  num_heads=2, hidden_dim=32, mlp_dim=64,
                                  num_classes=10)
        # torchvision zeroes the head, which would make every output 0.
        nn.init.normal_(model.heads.head.weight, std=0.2)
    elif name == "swin":
        model = SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2],
                                num_heads=[1, 2], window_size=[4, 4],
                                num_classes=10)
    elif name == "convnext":
        model = ConvNeXt([CNBlockConfig(16, 32, 1), CNBlockConfig(32, None, 1)],
                         num_classes=10)
    elif name == "encoder":
        model = Encoder()
    elif name == "decoder":
        model = Decoder()
    elif name == "decoder-cached":
        model = CachedDecoder()
    else:
        raise ValueError(f"unknown model {name}")
    return model.eval()
