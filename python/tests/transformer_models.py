"""Small transformers and hybrids with random weights, shared by the
transformer tests here and by test/Execution/Inputs/transformers_vs_ort.py:
torchvision's ViT, Swin and ConvNeXt at 32x32, and a BERT-like post-norm
GELU encoder built from torch.nn.TransformerEncoder."""

import torch
import torch.nn as nn
from torchvision.models.convnext import CNBlockConfig, ConvNeXt
from torchvision.models.swin_transformer import SwinTransformer
from torchvision.models.vision_transformer import VisionTransformer

NAMES = ("vit", "swin", "convnext", "encoder")


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


def make(name):
    """The model `name` (one of NAMES), in eval mode. Image models take
    3x32x32 images; the encoder takes int64 token ids."""
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
    else:
        raise ValueError(f"unknown model {name}")
    return model.eval()
