#!/usr/bin/env python3
"""Trains bench/llm's byte-level Llama-shaped decoder (lm.py) on the
docstrings of the Python standard library, exports it to ONNX and checks
that ONNX Runtime's perplexity of the export is torch's.

Writes, under the cache folder (--out; default
${QUANTQDQ_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/quant-qdq}/bench-llm):

    model.onnx        opset 17, input_ids int64 [batch, sequence] ->
                      logits float [batch, sequence, 256]
    model.pt          the trained state dict
    evaluation.npy    int64 [n, context], held-out files' text
    calibration.npy   int64 [n, context], calibration files' text
    meta.json         the key, the figures of the run

and skips training when meta.json's key matches this run's (a hash of the
hyperparameters, the file list and the text), only checking the export in
ONNX Runtime again. Training takes ~5 minutes on one core, single-threaded
and with oneDNN capped at AVX2 (common/reproducible.py), from a fixed seed.

usage: bench/llm/train.py [--out DIR] [--force]
"""
import argparse
import hashlib
import json
import math
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
from common import reproducible  # noqa: E402  (before torch)
from llm import lm  # noqa: E402

FORMAT = 1  # bump when what is written changes


def default_out():
    cache = os.environ.get("QUANTQDQ_CACHE_DIR") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        / "quant-qdq")
    return Path(cache) / "bench-llm"


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=default_out())
    parser.add_argument("--force", action="store_true",
                        help="train even when the cache matches")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--weight-decay", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--evaluation-sequences", type=int, default=256)
    parser.add_argument("--calibration-sequences", type=int, default=64)
    return parser.parse_args()


def hyperparameters(args, config):
    return {"format": FORMAT, "model": asdict(config), "steps": args.steps,
            "batch": args.batch, "lr": args.lr, "warmup": args.warmup,
            "weight_decay": args.weight_decay, "seed": args.seed,
            "evaluation_sequences": args.evaluation_sequences,
            "calibration_sequences": args.calibration_sequences}


def run_key(params, files, digest):
    text = json.dumps({"hyperparameters": params, "files": files,
                       "text": digest}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def learning_rate(step, args):
    """Linear warm-up, then cosine decay to a tenth."""
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    progress = (step - args.warmup) / max(1, args.steps - args.warmup)
    return args.lr * (0.1 + 0.45 * (1 + math.cos(math.pi * progress)))


def train(args, config, text):
    import torch
    import torch.nn.functional as F

    torch.manual_seed(args.seed)
    model = lm.make_model(config).train()
    decay = [p for p in model.parameters() if p.dim() >= 2]
    keep = [p for p in model.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": args.weight_decay},
         {"params": keep, "weight_decay": 0.0}], lr=args.lr,
        betas=(0.9, 0.95))
    data = torch.from_numpy(text.astype(np.int64))
    generator = torch.Generator().manual_seed(args.seed)
    losses = []
    start = time.time()
    for step in range(args.steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, args)
        starts = torch.randint(0, len(data) - config.context, (args.batch,),
                               generator=generator)
        ids = torch.stack([data[s:s + config.context] for s in starts])
        logits = model(ids)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, config.vocab),
                               ids[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
        if (step + 1) % 50 == 0 or step + 1 == args.steps:
            recent = float(np.mean(losses[-50:]))
            print(f"step {step + 1:4d}/{args.steps}  train loss "
                  f"{recent:.3f} nats ({recent / math.log(2):.2f} bits/byte)"
                  f"  {time.time() - start:.0f} s", flush=True)
    return model.eval(), float(np.mean(losses[-50:])), time.time() - start


def torch_logits(model, tokens, batch=16):
    import torch
    with torch.no_grad():
        return np.concatenate([model(torch.from_numpy(tokens[i:i + batch]))
                               .numpy() for i in range(0, len(tokens), batch)])


def main():
    args = arguments()
    reproducible.single_threaded_torch()
    config = lm.Config()
    texts, files = lm.corpus()
    params = hyperparameters(args, config)
    key = run_key(params, files, lm.data_digest(texts))
    out = args.out.expanduser()
    meta_path = out / "meta.json"
    paths = {name: out / name for name in
             ("model.onnx", "model.pt", "evaluation.npy", "calibration.npy")}
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    cached = (not args.force and meta.get("key") == key
              and all(p.exists() for p in paths.values()))

    if not cached:
        import torch
        out.mkdir(parents=True, exist_ok=True)
        meta_path.unlink(missing_ok=True)  # written last: the run's mark
        evaluation = lm.windows(texts["evaluation"], args.evaluation_sequences,
                                config.context)
        calibration = lm.windows(texts["calibration"],
                                 args.calibration_sequences, config.context)
        print(f"text: {len(files)} files of {lm.stdlib_root()}, docstrings "
              f"{len(texts['train'])} bytes for training, "
              f"{len(texts['calibration'])} for calibration, "
              f"{len(texts['evaluation'])} held out")
        model, train_loss, seconds = train(args, config, texts["train"])
        torch_nll = lm.next_token_nll(torch_logits(model, evaluation),
                                      evaluation)
        torch.save(model.state_dict(), paths["model.pt"])
        lm.export(model, paths["model.onnx"], config)
        np.save(paths["evaluation.npy"], evaluation)
        np.save(paths["calibration.npy"], calibration)
        meta = {
            "key": key, "hyperparameters": params, "files": len(files),
            "bytes": {k: int(len(v)) for k, v in texts.items()},
            "parameters": sum(p.numel() for p in model.parameters()),
            "train_seconds": round(seconds, 1), "train_loss": train_loss,
            "torch_eval_loss": torch_nll,
            "torch_perplexity": math.exp(torch_nll),
            "unigram_bits": lm.unigram_bits(texts["train"],
                                            texts["evaluation"]),
        }
        meta_path.write_text(json.dumps(meta, indent=1) + "\n")

    evaluation = np.load(paths["evaluation.npy"])
    ort_perplexity = lm.perplexity(paths["model.onnx"], evaluation)
    difference = abs(ort_perplexity - meta["torch_perplexity"]) / meta[
        "torch_perplexity"]
    print(f"{'cached' if cached else 'trained'} in {out} (key {key})")
    print(f"model: {config.layers} layers, hidden {config.hidden}, "
          f"{config.heads} heads / {config.kv_heads} kv heads, MLP "
          f"{config.mlp}, context {config.context}; {meta['parameters']} "
          f"parameters, {paths['model.onnx'].stat().st_size / 2**20:.2f} MiB "
          f"ONNX")
    print(f"training: {params['steps']} steps of {params['batch']} x "
          f"{config.context} bytes, {meta['train_seconds']:.0f} s; final "
          f"train loss {meta['train_loss']:.3f} nats "
          f"({meta['train_loss'] / math.log(2):.2f} bits/byte)")
    print(f"evaluation ({len(evaluation)} x {evaluation.shape[1]} held-out "
          f"bytes): torch loss {meta['torch_eval_loss']:.4f} nats, "
          f"perplexity {meta['torch_perplexity']:.4f}; ONNX Runtime FP32 "
          f"perplexity {ort_perplexity:.4f} "
          f"({lm.bits_per_byte(ort_perplexity):.3f} bits/byte; unigram "
          f"baseline {meta['unigram_bits']:.3f}); relative difference "
          f"{difference:.1e}")
    if difference > 1e-4:
        raise SystemExit("ONNX Runtime's perplexity differs from torch's by "
                         f"{difference:.1e} (limit 1e-4)")


if __name__ == "__main__":
    main()
