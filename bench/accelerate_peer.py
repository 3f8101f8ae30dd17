#!/usr/bin/env python3
"""The peer of bench/gpu_ab.sh: BERT on MRPC trained the way a Transformers +
Accelerate user trains it (Accelerator(mixed_precision=...), DataCollatorWithPadding,
AdamW with the no-decay groups, linear schedule with warm-up, clipping 1.0), with
the runner's semantics where they must agree for the comparison to mean anything:
the same initial weights (a folder both start from), the same epoch order
(torch.randperm(n, generator=Generator().manual_seed(seed + epoch)), the runner's
random sampler), the same tokenization (truncation to max_length).

    accelerate_peer.py init  --config DIR --out DIR [--seed 42]
    accelerate_peer.py train --init DIR --tokenizer DIR --data DIR --precision fp32|fp16|bf16
                             --steps N --warmup W [--batch 32] [--max-length 128]
                             [--fixed-length] [--no-dropout] [--seed 42]

`train` prints one JSON line: samples/s and real tokens/s over the N steps after
the W warm-up steps (CUDA-synchronised), the peak memory torch allocated, and the
per-step losses. Needs a CUDA GPU, torch, transformers and accelerate; the project
itself never needs Python (this is a bench peer, run only by gpu_ab.sh).
"""
import argparse
import csv
import json
import math
import sys
import time

import torch


def cmd_init(a):
    from transformers import AutoConfig, BertForSequenceClassification
    config = AutoConfig.from_pretrained(a.config, num_labels=2)
    torch.manual_seed(a.seed)
    BertForSequenceClassification(config).save_pretrained(a.out, safe_serialization=True)
    return 0


def mrpc_rows(data_dir):
    with open(f"{data_dir}/train.tsv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [(r[3], r[4], int(r[0])) for r in rows[1:]]


def encoded(a, tokenizer):
    pad = "max_length" if a.fixed_length else False
    out = []
    for text_a, text_b, label in mrpc_rows(a.data):
        e = tokenizer(text_a, text_b, truncation=True, max_length=a.max_length, padding=pad)
        e["labels"] = label
        out.append(e)
    return out


def step_batches(a, examples):
    """Batches in the runner's order: each epoch torch.randperm with seed + epoch."""
    epoch = 0
    while True:
        order = torch.randperm(len(examples), generator=torch.Generator().manual_seed(a.seed + epoch))
        for start in range(0, len(order), a.batch):
            yield [examples[i] for i in order[start:start + a.batch].tolist()]
        epoch += 1


def optimizer_of(model, lr, weight_decay):
    no_decay = ("bias", "LayerNorm.weight")
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(k in n for k in no_decay)],
         "weight_decay": weight_decay},
        {"params": [p for n, p in model.named_parameters() if any(k in n for k in no_decay)],
         "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=lr)


def cmd_train(a):
    from accelerate import Accelerator
    from transformers import (AutoTokenizer, BertForSequenceClassification, DataCollatorWithPadding,
                              get_linear_schedule_with_warmup)
    accelerator = Accelerator(mixed_precision="no" if a.precision == "fp32" else a.precision)
    tokenizer = AutoTokenizer.from_pretrained(a.tokenizer)
    extra = {"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0,
             "classifier_dropout": 0.0} if a.no_dropout else {}
    model = BertForSequenceClassification.from_pretrained(a.init, **extra)
    total = a.warmup + a.steps
    optimizer = optimizer_of(model, a.lr, a.weight_decay)
    scheduler = get_linear_schedule_with_warmup(optimizer, math.ceil(a.warmup_ratio * total), total)
    model, optimizer, scheduler = accelerator.prepare(model, optimizer, scheduler)
    collate = DataCollatorWithPadding(tokenizer)
    batches = step_batches(a, encoded(a, tokenizer))
    model.train()
    losses, samples, tokens, sum_sq, padded, padded_sq, started = [], 0, 0, 0, 0, 0, None
    torch.cuda.reset_peak_memory_stats()
    for step in range(total):
        if step == a.warmup:
            torch.cuda.synchronize()
            started = time.perf_counter()
        batch = collate(next(batches))
        lengths = batch["attention_mask"].sum(dim=1)
        real_tokens, squares = int(lengths.sum()), int((lengths * lengths).sum())
        rows, width = batch["attention_mask"].shape
        batch = {k: v.to(accelerator.device, non_blocking=True) for k, v in batch.items()}
        loss = model(**batch).loss
        accelerator.backward(loss)
        accelerator.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        if a.log_losses:
            losses.append(loss.item())
        if step >= a.warmup:
            samples += batch["labels"].shape[0]
            tokens += real_tokens
            sum_sq += squares
            padded += rows * width
            padded_sq += rows * width * width
    torch.cuda.synchronize()
    seconds = time.perf_counter() - started
    print(json.dumps({"samples_per_s": samples / seconds, "tokens_per_s": tokens / seconds,
                      "batch": a.batch, "step_seconds": seconds / a.steps,
                      "real_tokens_per_step": tokens / a.steps, "sum_sq_len_per_step": sum_sq / a.steps,
                      "padded_tokens_per_step": padded / a.steps, "sum_sq_padded_per_step": padded_sq / a.steps,
                      "peak_allocated_mib": torch.cuda.max_memory_allocated() / 2**20,
                      "losses": losses, "torch": torch.__version__}))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    i = sub.add_parser("init")
    i.add_argument("--config", required=True)
    i.add_argument("--out", required=True)
    i.add_argument("--seed", type=int, default=42)
    t = sub.add_parser("train")
    for name in ("--init", "--tokenizer", "--data"):
        t.add_argument(name, required=True)
    t.add_argument("--precision", choices=("fp32", "fp16", "bf16"), required=True)
    t.add_argument("--steps", type=int, required=True)
    t.add_argument("--warmup", type=int, required=True)
    t.add_argument("--batch", type=int, default=32)
    t.add_argument("--max-length", type=int, default=128)
    t.add_argument("--fixed-length", action="store_true", help="pad every batch to max_length")
    t.add_argument("--no-dropout", action="store_true")
    t.add_argument("--log-losses", action="store_true")
    t.add_argument("--seed", type=int, default=42)
    t.add_argument("--lr", type=float, default=2e-5)
    t.add_argument("--weight-decay", type=float, default=0.01)
    t.add_argument("--warmup-ratio", type=float, default=0.1)
    a = p.parse_args()
    return cmd_init(a) if a.cmd == "init" else cmd_train(a)


if __name__ == "__main__":
    sys.exit(main())
