"""The models the benchmarks measure, exported to ONNX with the data that go
with them: calibration arrays, evaluation arrays and, where the data are real,
labels.

Nothing is downloaded: the torchvision architectures get random weights with
their batch-norm statistics re-estimated on random inputs, the transformers
get BERT-style random initialisation, and the digits CNN is trained here on
scikit-learn's bundled handwritten digits (real data).
"""
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np
import torch
import torch.nn as nn
import torchvision


@dataclass
class BenchModel:
    name: str
    onnx: Path
    case: Optional[str]            # quant-qdq's library case; None: the default table
    calibration: np.ndarray        # N calibration inputs, batch first
    evaluation: list               # batch-1 evaluation inputs
    labels: Optional[np.ndarray] = None  # top-1 labels of `evaluation`
    notes: list = field(default_factory=list)


def _export(model, example, path, opset, input_name="input"):
    torch.onnx.export(model, example, str(path), opset_version=opset,
                      input_names=[input_name], output_names=["logits"],
                      dynamic_axes={input_name: {0: "batch"}, "logits": {0: "batch"}})


def _reestimate_batch_norm(model, size, batches=8):
    """With the default statistics (mean 0, variance 1) a random network's
    activations shrink or blow up layer after layer (MobileNet-v2's reach
    1e-9), which measures denormal arithmetic, not quantization. A plain
    average over a few random batches puts them where trained ones sit."""
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.rand(8, 3, size, size))
    model.eval()


# name -> (torchvision constructor, quant-qdq case)
TORCHVISION_CNNS = {
    "resnet18": ("resnet18", "resnet-v1"),
    "resnet50": ("resnet50", "resnet-v1"),
    "mobilenet_v2": ("mobilenet_v2", "mobilenet"),
    "mobilenet_v3_small": ("mobilenet_v3_small", "mobilenet"),
    "efficientnet_b0": ("efficientnet_b0", "efficientnet"),
}


def torchvision_cnn(name, work, size=224, calib=16, evaluate=8, seed=0):
    constructor, case = TORCHVISION_CNNS[name]
    torch.manual_seed(seed)
    model = getattr(torchvision.models, constructor)()
    _reestimate_batch_norm(model, size)
    path = Path(work) / f"{name}.onnx"
    _export(model, torch.rand(1, 3, size, size), path, opset=13)
    rng = np.random.RandomState(seed)
    return BenchModel(
        name=name, onnx=path, case=case,
        calibration=rng.rand(calib, 3, size, size).astype(np.float32),
        evaluation=[rng.rand(1, 3, size, size).astype(np.float32)
                    for _ in range(evaluate)],
        notes=[f"random weights, BN statistics re-estimated, {size}x{size}"])


# Hybrids and windowed transformers torchvision builds with random weights
# as they come (no zero-initialised head to fix): quant-qdq's `transformer`.
TORCHVISION_TRANSFORMERS = ("swin_t", "convnext_tiny")


def torchvision_transformer(name, work, size=224, calib=16, evaluate=8,
                            seed=0):
    torch.manual_seed(seed)
    model = getattr(torchvision.models, name)().eval()
    path = Path(work) / f"{name}.onnx"
    _export(model, torch.rand(1, 3, size, size), path, opset=17)
    rng = np.random.RandomState(seed)
    return BenchModel(
        name=name, onnx=path, case="transformer",
        calibration=rng.rand(calib, 3, size, size).astype(np.float32),
        evaluation=[rng.rand(1, 3, size, size).astype(np.float32)
                    for _ in range(evaluate)],
        notes=[f"random weights (torchvision initialisation), {size}x{size}"])


def vit_b_16(work, calib=16, evaluate=8, seed=0):
    """torchvision's ViT-B/16 at 224 (12 layers, hidden 768, 197 tokens)."""
    torch.manual_seed(seed)
    model = torchvision.models.vit_b_16().eval()
    # torchvision starts the classifier at zero (fine-tuning starts there):
    # every output would be 0, and so would every error.
    nn.init.normal_(model.heads.head.weight, std=0.02)
    path = Path(work) / "vit_b_16.onnx"
    _export(model, torch.rand(1, 3, 224, 224), path, opset=17)
    rng = np.random.RandomState(seed)
    return BenchModel(
        name="vit_b_16", onnx=path, case="transformer",
        calibration=rng.rand(calib, 3, 224, 224).astype(np.float32),
        evaluation=[rng.rand(1, 3, 224, 224).astype(np.float32)
                    for _ in range(evaluate)],
        notes=["random weights (torchvision initialisation, classifier "
               "N(0, 0.02)), 224x224"])


class _BertLayer(nn.Module):
    """Post-norm encoder layer as in BERT: self-attention, add & LayerNorm,
    GELU MLP, add & LayerNorm. Written out (not nn.TransformerEncoderLayer)
    so that the export is the plain MatMul/Softmax/LayerNorm graph that BERT
    exports give, not a fused fast path."""

    def __init__(self, hidden, heads, mlp):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = (nn.Linear(hidden, hidden) for _ in range(3))
        self.attention_out = nn.Linear(hidden, hidden)
        self.norm1 = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate, self.output = nn.Linear(hidden, mlp), nn.Linear(mlp, hidden)
        self.norm2 = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x):
        b, s, h = x.shape
        d = h // self.heads

        def split(t):
            return t.view(b, s, self.heads, d).transpose(1, 2)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / (d ** 0.5)
        context = torch.matmul(torch.softmax(scores, dim=-1), v)
        context = context.transpose(1, 2).reshape(b, s, h)
        x = self.norm1(x + self.attention_out(context))
        return self.norm2(x + self.output(nn.functional.gelu(self.intermediate(x))))


class BertLikeEncoder(nn.Module):
    """BERT-base's shape (hidden 768, 12 heads, MLP 3072, token and position
    embeddings, pooler and a 2-way classifier) with `layers` layers."""

    def __init__(self, vocab=30522, hidden=768, heads=12, mlp=3072, layers=12,
                 max_positions=512, classes=2):
        super().__init__()
        self.tokens = nn.Embedding(vocab, hidden)
        self.positions = nn.Embedding(max_positions, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList(_BertLayer(hidden, heads, mlp) for _ in range(layers))
        self.pooler = nn.Linear(hidden, hidden)
        self.classifier = nn.Linear(hidden, classes)
        for m in self.modules():  # BERT's initialisation
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)
            if isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.norm(self.tokens(ids) + self.positions(positions))
        for layer in self.layers:
            x = layer(x)
        return self.classifier(torch.tanh(self.pooler(x[:, 0])))


def bert_like(work, seq=128, layers=12, calib=16, evaluate=8, seed=0):
    torch.manual_seed(seed)
    model = BertLikeEncoder(layers=layers).eval()
    path = Path(work) / "bert_like.onnx"
    _export(model, torch.zeros(1, seq, dtype=torch.int64), path, opset=17,
            input_name="input_ids")
    rng = np.random.RandomState(seed)
    vocab = model.tokens.num_embeddings
    return BenchModel(
        name="bert_like", onnx=path, case="transformer",
        calibration=rng.randint(0, vocab, (calib, seq)).astype(np.int64),
        evaluation=[rng.randint(0, vocab, (1, seq)).astype(np.int64)
                    for _ in range(evaluate)],
        notes=[f"BERT-base shape, {layers} layers, random token ids, sequence {seq}"])


class _DigitsBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


class DigitsNet(nn.Module):
    """A small CNN with residual adds, batch norm and max pooling."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU())
        self.block1, self.pool = _DigitsBlock(16), nn.MaxPool2d(2)
        self.block2 = _DigitsBlock(16)
        self.head = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(32), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                  nn.Linear(32, 10))

    def forward(self, x):
        return self.head(self.block2(self.pool(self.block1(self.stem(x)))))


class _InvertedResidual(nn.Module):
    """MobileNet-v2's block: 1x1 expansion, 3x3 depthwise, 1x1 linear
    projection, ReLU6 between, a residual add when shapes allow."""

    def __init__(self, c_in, c_out, expand, stride):
        super().__init__()
        hidden = c_in * expand
        self.residual = stride == 1 and c_in == c_out
        self.layers = nn.Sequential(
            nn.Conv2d(c_in, hidden, 1, bias=False), nn.BatchNorm2d(hidden),
            nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden,
                      bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, c_out, 1, bias=False), nn.BatchNorm2d(c_out))

    def forward(self, x):
        y = self.layers(x)
        return x + y if self.residual else y


class DigitsMobileNet(nn.Module):
    """A MobileNet-v2 in miniature: a stem, four inverted residual blocks
    (two with residual adds, one strided), a classifier."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU6())
        self.blocks = nn.Sequential(
            _InvertedResidual(16, 16, 4, 1), _InvertedResidual(16, 24, 4, 2),
            _InvertedResidual(24, 24, 4, 1), _InvertedResidual(24, 32, 4, 1))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                  nn.Linear(32, 10))

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))


def _train_on_digits(make_model, name, work, calib, epochs, seed, flatten):
    """`make_model()` trained on 70% of scikit-learn's 1797 8x8 digits
    (made after seeding, so that its initial weights follow `seed`; images, or
    64-vectors when `flatten`); the other 30% (540 images) are the
    evaluation set, with their labels. Calibration takes the first `calib`
    training images, never test images."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    torch.manual_seed(seed)
    digits = load_digits()
    x = (digits.images.astype(np.float32) / 16.0 - 0.5)[:, None]
    model = make_model()
    if flatten:
        x = x.reshape(len(x), 64)
    y = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.3, random_state=seed, stratify=y)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    for _ in range(epochs):
        perm = torch.randperm(len(xt))
        model.train()
        for i in range(0, len(xt), 64):
            idx = perm[i:i + 64]
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(xt[idx]), yt[idx]).backward()
            optimizer.step()
    model.eval()
    path = Path(work) / f"{name}.onnx"
    _export(model, torch.zeros((1,) + x.shape[1:]), path, opset=13,
            input_name="image")
    return BenchModel(
        name=name, onnx=path, case="resnet-v1",
        calibration=x_train[:calib].copy(),
        evaluation=[x_test[i:i + 1] for i in range(len(x_test))],
        labels=y_test,
        notes=[f"trained on {len(x_train)} real digits, "
               f"evaluated on {len(x_test)} held-out ones"])


def digits_cnn(work, calib=256, epochs=30, seed=0):
    """DigitsNet trained on the digits (_train_on_digits)."""
    return _train_on_digits(DigitsNet, "digits_cnn", work, calib, epochs,
                            seed, flatten=False)


def digits_mobilenet(work, calib=256, epochs=30, seed=0):
    """DigitsMobileNet trained on the digits (_train_on_digits), with the
    `mobilenet` case."""
    model = _train_on_digits(DigitsMobileNet, "digits_mobilenet", work,
                             calib, epochs, seed, flatten=False)
    model.case = "mobilenet"
    return model


# The CNNs small_cnn builds.
SMALL_CNNS = ["efficientnet_b0", "mobilenet_v2", "resnet18", "digits_cnn"]


def small_cnn(name, work, digits_calib):
    """A CNN of the accuracy benches by name: the trained digits CNN with
    `digits_calib` calibration images, or a torchvision CNN at 64x64
    (torchvision_cnn: 16 calibration and 8 held-out images)."""
    if name == "digits_cnn":
        return digits_cnn(work, calib=digits_calib)
    if name == "digits_mobilenet":
        return digits_mobilenet(work, calib=digits_calib)
    return torchvision_cnn(name, work, size=64, calib=16, evaluate=8)


def digits_mlp(work, calib=256, epochs=30, seed=0):
    """A three-layer perceptron (64-256-256-10, ReLU) trained on the digits
    as 64-vectors: only matrix products, the layers int4 weight-only
    formats are for."""
    def make():
        return nn.Sequential(nn.Linear(64, 256), nn.ReLU(),
                             nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    return _train_on_digits(make, "digits_mlp", work, calib, epochs, seed,
                            flatten=True)
