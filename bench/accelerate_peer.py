#!/usr/bin/env python3
"""The peer of bench/gpu_ab.sh (CUDA) and bench/peer_ab.sh (CPU): BERT on MRPC or
SST-2 (or, `train --task conll|squad`, token classification as run_ner.py and question
answering as run_qa.py train it) trained the way a Transformers + Accelerate user trains it (Accelerator(mixed_precision=...), DataCollatorWithPadding,
AdamW with the no-decay groups, linear schedule with warm-up, clipping 1.0), with
the runner's semantics where they must agree for the comparison to mean anything:
the same initial weights (a folder both start from), the same epoch order
(torch.randperm(n, generator=Generator().manual_seed(seed + epoch)), the runner's
random sampler), the same tokenization (truncation to max_length).

    accelerate_peer.py init  --config DIR --out DIR [--seed 42] [--preset bert-mini]
    accelerate_peer.py init  --pretrained DIR --out DIR [--seed 42]   (encoder + a head from the seed)
    accelerate_peer.py init  --family roberta|deberta-v2|modernbert --tokenizer-json FILE --out DIR
                             [--seed 42] [--preset bert-mini]
    accelerate_peer.py train --init DIR --tokenizer DIR --data DIR --precision fp32|fp16|bf16
                             --steps N --warmup W [--task mrpc|sst2|conll|squad] [--device cuda|cpu]
                             [--batch 32] [--max-length 128] [--fixed-length] [--no-dropout]
                             [--seed 42] [--lr 2e-5] [--warmup-ratio 0.1] [--profile-json OUT]
    accelerate_peer.py finetune --init DIR --tokenizer DIR --data DIR --precision fp32|bf16
                             --epochs E [--task mrpc|sst2|squad] [--seed S] [--lr 5e-5] [...train's]
    accelerate_peer.py gemm  --device cpu|cuda   (the GEMM ceiling: fp32 and bf16 FLOP/s)

`init` writes a randomly initialised BertForSequenceClassification (bert-base's
shape from --config, or a preset's sizes, the runner's names). `--init` may also be
a pretrained encoder's folder (all-MiniLM-L6-v2): the head is drawn from the seed.
`init --family` writes a random RoBERTa, DeBERTa-v3 or ModernBERT of the preset's
depth, width and heads, every other setting the family's base checkpoint's (FAMILY_BASE:
vocabulary size, positions, relative buckets, RoPE, local window, feed-forward ratio),
with the special ids of --tokenizer-json, which it copies beside the weights with a
tokenizer_config.json, so that both sides read one tokenizer from that folder.
`train` prints one JSON line: samples/s and real tokens/s over the N steps after
the W warm-up steps (CUDA-synchronised), the peak memory (torch's allocator on a
GPU, the process's peak resident set on the CPU), and the per-step losses.
`train --profile-json OUT` then runs N more steps under torch.profiler (CPU) and
writes every op's self milliseconds and calls per step to OUT, with the forward,
backward and optimizer milliseconds per step of the N timed steps: the peer's
half of bench/op_profile_table.py.
`finetune` trains whole epochs the same way and prints one JSON line with the
dev set's accuracy (and F1 of class 1 on MRPC) after the last step: the Hugging
Face side of bench/accuracy_ab.sh. Needs
torch, transformers and accelerate; the project itself never needs Python (this is
a bench peer, run only by gpu_ab.sh and peer_ab.sh).
"""
import argparse
import csv
import json
import os
import math
import resource
import sys
import time

import torch


# Layers, hidden size, heads of the runner's presets (Google's BERT miniatures);
# the feed-forward width is 4 x hidden, as theirs.
PRESETS = {"bert-tiny": (2, 128, 2), "bert-mini": (4, 256, 4), "bert-small": (4, 512, 8),
           "bert-medium": (8, 512, 8)}


# The settings of roberta-base, microsoft/deberta-v3-base and answerdotai/ModernBERT-base
# (their config.json) that a smaller copy keeps; "ffn" is intermediate_size / hidden_size.
FAMILY_BASE = {
    "roberta": dict(ffn=4, vocab_size=50265, max_position_embeddings=514, type_vocab_size=1, layer_norm_eps=1e-5),
    "deberta-v2": dict(ffn=4, vocab_size=128100, max_position_embeddings=512, type_vocab_size=0,
                       relative_attention=True, position_buckets=256, max_relative_positions=-1,
                       pos_att_type=["p2c", "c2p"], share_att_key=True, norm_rel_ebd="layer_norm",
                       position_biased_input=False, layer_norm_eps=1e-7, pooler_hidden_act="gelu"),
    "modernbert": dict(ffn=1.5, vocab_size=50368, max_position_embeddings=8192, local_attention=128,
                       global_attn_every_n_layers=3, global_rope_theta=160000.0, local_rope_theta=10000.0,
                       norm_eps=1e-5, classifier_pooling="mean"),
}


def stack_versions():
    """The peer's pinned stack as one line, recorded with each result."""
    import accelerate
    import transformers
    return (f"torch {torch.__version__}, transformers {transformers.__version__}, "
            f"accelerate {accelerate.__version__}")


def special_tokens(tokenizer_json):
    """(token, id) of pad, bos/cls and eos/sep in a tokenizer.json, by the tokens' usual names."""
    with open(tokenizer_json, encoding="utf-8") as f:
        added = {t["content"]: t["id"] for t in json.load(f)["added_tokens"]}
    pick = lambda *names: next((n, added[n]) for n in names if n in added)
    return pick("<pad>", "[PAD]"), pick("<s>", "[CLS]"), pick("</s>", "[SEP]")


def cmd_init_family(a):
    import shutil
    from transformers import AutoConfig, AutoModelForSequenceClassification
    layers, hidden, heads = PRESETS[a.preset or "bert-mini"]
    base = dict(FAMILY_BASE[a.family])
    ffn = base.pop("ffn")
    (pad_token, pad), (bos_token, bos), (eos_token, eos) = special_tokens(a.tokenizer_json)
    ids = dict(pad_token_id=pad, bos_token_id=bos, eos_token_id=eos)
    if a.family == "modernbert":
        ids.update(cls_token_id=bos, sep_token_id=eos)
    config = AutoConfig.for_model(a.family, num_hidden_layers=layers, hidden_size=hidden, num_attention_heads=heads,
                                  intermediate_size=int(ffn * hidden), num_labels=2, **base, **ids)
    torch.manual_seed(a.seed)
    AutoModelForSequenceClassification.from_config(config).save_pretrained(a.out, safe_serialization=True)
    shutil.copyfile(a.tokenizer_json, os.path.join(a.out, "tokenizer.json"))
    with open(os.path.join(a.out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "pad_token": pad_token, "cls_token": bos_token,
                   "sep_token": eos_token, "model_max_length": 512}, f)
    return 0


def cmd_init(a):
    from transformers import AutoConfig, BertForSequenceClassification
    if a.family:
        return cmd_init_family(a)
    if a.pretrained:  # the classifier as finetune draws it; saved, both sides start from it
        torch.manual_seed(a.seed)
        BertForSequenceClassification.from_pretrained(a.pretrained, num_labels=2).save_pretrained(
            a.out, safe_serialization=True)
        return 0
    config = AutoConfig.from_pretrained(a.config, num_labels=2)
    if a.preset:
        layers, hidden, heads = PRESETS[a.preset]
        config.update({"num_hidden_layers": layers, "hidden_size": hidden, "num_attention_heads": heads,
                       "intermediate_size": 4 * hidden})
    torch.manual_seed(a.seed)
    BertForSequenceClassification(config).save_pretrained(a.out, safe_serialization=True)
    return 0


def split_rows(data_dir, task, split="train"):
    """(text_a, text_b or None, label) of GLUE's SPLIT.tsv, as the runner's glue datasets read it."""
    with open(f"{data_dir}/{split}.tsv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    if task == "sst2":
        return [(r[0], None, int(r[1])) for r in rows[1:]]
    return [(r[3], r[4], int(r[0])) for r in rows[1:]]


def conll_sentences(path):
    """(words, tags) of each sentence of a CoNLL file: a word and its tag a line, a blank line between
    sentences, -DOCSTART- lines skipped."""
    sentences, words, tags = [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] == "-DOCSTART-":
                continue
            if not parts:
                if words:
                    sentences.append((words, tags))
                words, tags = [], []
                continue
            words.append(parts[0])
            tags.append(parts[-1])
    if words:
        sentences.append((words, tags))
    return sentences


def conll_labels(data_dir):
    """The train file's tags in byte order, as run_ner.py and the runner list them."""
    return sorted({t for _, tags in conll_sentences(f"{data_dir}/train.conll") for t in tags})


def encoded_sentences(a, tokenizer, split):
    """run_ner.py's tokenize_and_align_labels: each word's first sub-token gets its tag, the rest -100."""
    labels = {name: i for i, name in enumerate(conll_labels(a.data))}
    pad = "max_length" if a.fixed_length else False
    out = []
    for words, tags in conll_sentences(f"{a.data}/{split}.conll"):
        e = tokenizer(words, is_split_into_words=True, truncation=True, max_length=a.max_length, padding=pad)
        previous, aligned = None, []
        for word in e.word_ids():
            aligned.append(-100 if word is None or word == previous else labels[tags[word]])
            previous = word
        e["labels"] = aligned
        out.append(e)
    return out


def encoded_questions(a, tokenizer, split):
    """run_qa.py's prepare_train_features on SQuAD JSONL lines: the question (leading whitespace
    stripped) then the context, cut only in the context into windows of max_length that share
    doc_stride tokens, padded to max_length; a window's start and end are the tokens of the first
    answer's first and last characters, or the CLS position when it does not hold the answer."""
    with open(f"{a.data}/{split}.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    enc = tokenizer([r["question"].lstrip() for r in rows], [r["context"] for r in rows], truncation="only_second",
                    max_length=a.max_length, stride=a.doc_stride, return_overflowing_tokens=True,
                    return_offsets_mapping=True, padding="max_length")
    out = []
    for i, offsets in enumerate(enc["offset_mapping"]):
        ids, sequence = enc["input_ids"][i], enc.sequence_ids(i)
        start = end = ids.index(tokenizer.cls_token_id)
        answers = rows[enc["overflow_to_sample_mapping"][i]]["answers"]
        if answers["answer_start"]:
            first_char = answers["answer_start"][0]
            last_char = first_char + len(answers["text"][0])
            first, last = sequence.index(1), len(ids) - 1 - sequence[::-1].index(1)
            if offsets[first][0] <= first_char and offsets[last][1] >= last_char:
                while first < len(offsets) and offsets[first][0] <= first_char:
                    first += 1
                while offsets[last][1] >= last_char:
                    last -= 1
                start, end = first - 1, last + 1
        feature = {k: enc[k][i] for k in ("input_ids", "token_type_ids", "attention_mask") if k in enc}
        if a.qa_loss == "tokens":  # the padding goes; a position on it names no token: ignored
            real = sum(feature["attention_mask"])
            feature = {k: v[:real] for k, v in feature.items()}
            start, end = (p if p < real else -100 for p in (start, end))
        feature.update(start_positions=start, end_positions=end)
        out.append(feature)
    return out


def encoded(a, tokenizer, split="train"):
    if a.task == "conll":
        return encoded_sentences(a, tokenizer, split)
    if a.task == "squad":
        return encoded_questions(a, tokenizer, split)
    pad = "max_length" if a.fixed_length else False
    out = []
    for text_a, text_b, label in split_rows(a.data, a.task, split):
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
    trained = [(n, p) for n, p in model.named_parameters() if p.requires_grad]  # all but a frozen LoRA base
    groups = [
        {"params": [p for n, p in trained if not any(k in n for k in no_decay)], "weight_decay": weight_decay},
        {"params": [p for n, p in trained if any(k in n for k in no_decay)], "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=lr)


def prepared(a, total_steps):
    """Accelerator, tokenizer, collator and the prepared model, optimizer and schedule."""
    from accelerate import Accelerator
    from transformers import (AutoModelForQuestionAnswering, AutoModelForSequenceClassification,
                              AutoModelForTokenClassification, AutoTokenizer, DataCollatorForTokenClassification,
                              DataCollatorWithPadding, default_data_collator, get_linear_schedule_with_warmup)
    accelerator = Accelerator(mixed_precision="no" if a.precision == "fp32" else a.precision,
                              cpu=a.device != "cuda")
    tokenizer = AutoTokenizer.from_pretrained(a.tokenizer)
    extra = {"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0,
             "classifier_dropout": 0.0} if a.no_dropout else {}
    torch.manual_seed(a.seed)  # transformers' set_seed: a pretrained encoder's new head comes from it
    if a.task == "conll":  # run_ner.py's model and collator
        model = AutoModelForTokenClassification.from_pretrained(a.init, num_labels=len(conll_labels(a.data)),
                                                                **extra)
        collate = DataCollatorForTokenClassification(tokenizer)
    elif a.task == "squad":  # run_qa.py's: windows padded to max_length (--qa-loss tokens: dynamic padding)
        model = AutoModelForQuestionAnswering.from_pretrained(a.init, **extra)
        collate = DataCollatorWithPadding(tokenizer) if a.qa_loss == "tokens" else default_data_collator
    else:
        model = AutoModelForSequenceClassification.from_pretrained(a.init, num_labels=2, **extra)
        collate = DataCollatorWithPadding(tokenizer)
    if getattr(a, "lora", None):  # PEFT's adapters on query and value; the new classifier trains whole
        from peft import LoraConfig, get_peft_model
        r, alpha = (int(v) for v in a.lora.split(","))
        model = get_peft_model(model, LoraConfig(task_type="SEQ_CLS", r=r, lora_alpha=alpha, lora_dropout=0.0,
                                                 target_modules=["query", "value"]))
    optimizer = optimizer_of(model, a.lr, a.weight_decay)
    scheduler = get_linear_schedule_with_warmup(optimizer, math.ceil(a.warmup_ratio * total_steps), total_steps)
    model, optimizer, scheduler = accelerator.prepare(model, optimizer, scheduler)
    return accelerator, tokenizer, collate, model, optimizer, scheduler


def loss_function(a):
    """The model's own loss; under --qa-loss tokens, Transformers' question answering loss with the
    padding's logits at finfo.min, so that each softmax runs over its window's tokens (the runner's
    default, model.qa_loss_includes_padding = false), positions at the padding being -100."""
    if a.task != "squad" or a.qa_loss == "padding":
        return lambda model, batch: model(**batch).loss

    def over_tokens(model, batch):
        positions = {k: batch.pop(k) for k in ("start_positions", "end_positions")}
        out = model(**batch)
        pad = batch["attention_mask"] == 0
        ce = torch.nn.CrossEntropyLoss(ignore_index=-100)

        def side(logits, key):
            return ce(logits.float().masked_fill(pad, torch.finfo(torch.float32).min), positions[key])
        return (side(out.start_logits, "start_positions") + side(out.end_logits, "end_positions")) / 2
    return over_tokens


def train_step(accelerator, model, optimizer, scheduler, batch, phases=None, loss_of=None):
    """One optimizer step; with `phases`, adds the seconds of forward, backward and optimizer to it."""
    t0 = time.perf_counter()
    loss = loss_of(model, batch) if loss_of else model(**batch).loss
    t1 = time.perf_counter()
    accelerator.backward(loss)
    t2 = time.perf_counter()
    accelerator.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    if phases is not None:
        t3 = time.perf_counter()
        for name, seconds in (("forward", t1 - t0), ("backward", t2 - t1), ("optimizer", t3 - t2)):
            phases[name] = phases.get(name, 0.0) + seconds
    return loss


def cmd_train(a):
    cuda = a.device == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    # --profile-json: N more steps after the timed ones, under the profiler.
    timed_end = a.warmup + a.steps
    total = timed_end + (a.steps if a.profile_json else 0)
    accelerator, tokenizer, collate, model, optimizer, scheduler = prepared(a, total)
    batches = step_batches(a, encoded(a, tokenizer))
    model.train()
    losses, samples, tokens, sum_sq, padded, padded_sq, started = [], 0, 0, 0, 0, 0, None
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    profiler, phases, seconds = None, {}, None
    for step in range(total):
        if step == a.warmup:
            sync()
            started = time.perf_counter()
        if step == timed_end and a.profile_json:
            sync()
            seconds = time.perf_counter() - started
            profiler = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
            profiler.__enter__()
        batch = collate(next(batches))
        lengths = batch["attention_mask"].sum(dim=1)
        real_tokens, squares = int(lengths.sum()), int((lengths * lengths).sum())
        rows, width = batch["attention_mask"].shape
        batch = {k: v.to(accelerator.device, non_blocking=True) for k, v in batch.items()}
        in_timing = a.warmup <= step < timed_end
        loss = train_step(accelerator, model, optimizer, scheduler, batch, phases if in_timing else None,
                          loss_function(a))
        if a.log_losses:
            losses.append(loss.item())
        if in_timing:
            samples += rows
            tokens += real_tokens
            sum_sq += squares
            padded += rows * width
            padded_sq += rows * width * width
    sync()
    if seconds is None:
        seconds = time.perf_counter() - started
    if profiler is not None:
        profiler.__exit__(None, None, None)
        write_profile(a.profile_json, profiler, phases, a.steps)
    peak_mib = (torch.cuda.max_memory_allocated() if cuda
                else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024) / 2**20
    print(json.dumps({"samples_per_s": samples / seconds, "tokens_per_s": tokens / seconds,
                      "batch": a.batch, "step_seconds": seconds / a.steps,
                      "real_tokens_per_step": tokens / a.steps, "sum_sq_len_per_step": sum_sq / a.steps,
                      "padded_tokens_per_step": padded / a.steps, "sum_sq_padded_per_step": padded_sq / a.steps,
                      "peak_allocated_mib": peak_mib, "threads": torch.get_num_threads(),
                      "losses": losses, "torch": torch.__version__}))
    return 0


def write_profile(path, profiler, phases, steps):
    """Every op's self CPU time and calls per step, largest first, and the phases' ms per step
    (step_bench --ops-json's layout; the phases are the timed steps', run without the profiler)."""
    ops = [{"name": e.key, "self_ms": e.self_cpu_time_total / 1000.0 / steps, "calls": e.count / steps}
           for e in profiler.key_averages()]
    ops.sort(key=lambda o: -o["self_ms"])
    with open(path, "w") as f:
        json.dump({"side": "peer", "steps": steps, "ops": ops,
                   "phases": {k: 1000.0 * v / steps for k, v in phases.items()}}, f)
        f.write("\n")


def dev_metrics(accelerator, model, collate, examples, batch=64):
    """Accuracy and F1 of class 1 (GLUE's MRPC F1) of argmax predictions over the dev set."""
    model.eval()
    hits = tp = fp = fn = 0
    with torch.no_grad():
        for start in range(0, len(examples), batch):
            chunk = collate(examples[start:start + batch])
            labels = chunk["labels"]
            logits = model(**{k: v.to(accelerator.device) for k, v in chunk.items()}).logits
            predicted = logits.argmax(dim=-1).cpu()
            hits += int((predicted == labels).sum())
            tp += int(((predicted == 1) & (labels == 1)).sum())
            fp += int(((predicted == 1) & (labels == 0)).sum())
            fn += int(((predicted == 0) & (labels == 1)).sum())
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return {"accuracy": hits / len(examples), "f1": f1, "examples": len(examples)}


def squad_rows(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def validation_features(a, tokenizer, rows):
    """run_qa.py's prepare_validation_features: the training windows, each with its example's
    index and the character offsets of its context tokens (None elsewhere)."""
    enc = tokenizer([r["question"].lstrip() for r in rows], [r["context"] for r in rows], truncation="only_second",
                    max_length=a.max_length, stride=a.doc_stride, return_overflowing_tokens=True,
                    return_offsets_mapping=True, padding="max_length")
    features = []
    for i, offsets in enumerate(enc["offset_mapping"]):
        sequence = enc.sequence_ids(i)
        inputs = {k: enc[k][i] for k in ("input_ids", "token_type_ids", "attention_mask") if k in enc}
        real = sum(inputs["attention_mask"]) if a.qa_loss == "tokens" else len(offsets)  # tokens: no padding
        features.append({"inputs": {k: v[:real] for k, v in inputs.items()},
                         "example": enc["overflow_to_sample_mapping"][i],
                         "offsets": [o if sequence[k] == 1 else None for k, o in enumerate(offsets[:real])]})
    return features


def best_answers(rows, features, starts, ends, n_best=20, max_answer_length=30):
    """run_qa.py's postprocess_qa_predictions with version_2_with_negative and a null threshold of 0:
    per example, the n-best start and end logits of each window give candidate spans inside the
    context, at most max_answer_length tokens; the best span's text, or "" when the smallest null
    score (the CLS position's start + end) beats it."""
    by_example = {}
    for f, feature in enumerate(features):
        by_example.setdefault(feature["example"], []).append(f)
    answers = {}
    for e, row in enumerate(rows):
        null, best = None, None
        for f in by_example.get(e, []):
            s, t, offsets = starts[f], ends[f], features[f]["offsets"]
            score = s[0] + t[0]
            null = score if null is None or score < null else null
            for i in sorted(range(len(s)), key=lambda k: -s[k])[:n_best]:
                for j in sorted(range(len(t)), key=lambda k: -t[k])[:n_best]:
                    if offsets[i] is None or offsets[j] is None or j < i or j - i + 1 > max_answer_length:
                        continue
                    if best is None or s[i] + t[j] > best[0]:
                        best = (s[i] + t[j], row["context"][offsets[i][0]:offsets[j][1]])
        answers[row["id"]] = "" if best is None or null > best[0] else best[1]
    return answers


def squad_scores(rows, answers):
    """The official SQuAD v2.0 exact match and F1 (0-100): lower case, no punctuation, no articles,
    single spaces; the best over the gold answers ("" for an unanswerable question)."""
    import collections
    import re
    import string

    def normal(text):
        text = "".join(c for c in text.lower() if c not in set(string.punctuation))
        return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())

    def f1(gold, predicted):
        g, p = normal(gold).split(), normal(predicted).split()
        if not g or not p:
            return float(g == p)
        common = sum((collections.Counter(g) & collections.Counter(p)).values())
        return 0.0 if common == 0 else 2 * common / (len(g) + len(p))

    exact = total_f1 = 0.0
    for row in rows:
        golds = [t for t in row["answers"]["text"] if normal(t)] or [""]
        predicted = answers[row["id"]]
        exact += max(float(normal(g) == normal(predicted)) for g in golds)
        total_f1 += max(f1(g, predicted) for g in golds)
    return {"exact": 100 * exact / len(rows), "f1": 100 * total_f1 / len(rows), "examples": len(rows)}


def qa_dev_metrics(accelerator, model, tokenizer, a, batch=64):
    """The dev questions answered as run_qa.py evaluates them: logits of every window, then
    the post-processing, then SQuAD's scores."""
    from transformers import DataCollatorWithPadding, default_data_collator
    rows = squad_rows(f"{a.data}/dev.jsonl")
    features = validation_features(a, tokenizer, rows)
    collate = DataCollatorWithPadding(tokenizer) if a.qa_loss == "tokens" else default_data_collator
    model.eval()
    starts, ends = [], []
    with torch.no_grad():
        for begin in range(0, len(features), batch):
            chunk = collate([f["inputs"] for f in features[begin:begin + batch]])
            out = model(**{k: v.to(accelerator.device) for k, v in chunk.items()})
            lengths = [len(f["offsets"]) for f in features[begin:begin + batch]]  # each window's own
            starts += [row[:n] for row, n in zip(out.start_logits.float().cpu().tolist(), lengths)]
            ends += [row[:n] for row, n in zip(out.end_logits.float().cpu().tolist(), lengths)]
    return squad_scores(rows, best_answers(rows, features, starts, ends))


def cmd_finetune(a):
    """Whole epochs in the runner's order, then the dev set's metrics: one JSON line."""
    from transformers import AutoTokenizer
    started = time.perf_counter()
    train = encoded(a, AutoTokenizer.from_pretrained(a.tokenizer))  # the windows, for the epoch's length
    steps_per_epoch = math.ceil(len(train) / a.batch)
    total = a.epochs * steps_per_epoch
    accelerator, tokenizer, collate, model, optimizer, scheduler = prepared(a, total)
    batches = step_batches(a, train)
    save_at = {int(x) for x in a.save_state_at.split(",") if x}
    if a.task == "squad":
        dev_metrics_of = lambda: qa_dev_metrics(accelerator, model, tokenizer, a)
    else:
        dev = encoded(a, tokenizer, "dev")
        dev_metrics_of = lambda: dev_metrics(accelerator, model, collate, dev)
    save_s = 0.0
    model.train()
    for step in range(1, total + 1):
        batch = {k: v.to(accelerator.device) for k, v in collate(next(batches)).items()}
        loss = train_step(accelerator, model, optimizer, scheduler, batch, loss_of=loss_function(a))
        if a.eval_each_epoch and step % steps_per_epoch == 0 and step < total:
            dev_metrics_of()  # the job's work; the last one is below
            model.train()
        if step in save_at:
            began = time.perf_counter()
            accelerator.save_state(os.path.join(a.save_dir, f"step-{step}"))
            save_s += time.perf_counter() - began
    metrics = dev_metrics_of()
    if a.save_final:  # the trained model as a folder Transformers loads, as the runner's final/
        began = time.perf_counter()
        accelerator.unwrap_model(model).save_pretrained(a.save_final, safe_serialization=True)
        save_s += time.perf_counter() - began
    print(json.dumps({"side": "peer", "task": a.task, "seed": a.seed, "steps": total,
                      "final_train_loss": loss.item(), **metrics, "precision": a.precision,
                      "save_s": save_s, "states_saved": len(save_at & set(range(1, total + 1))),
                      "threads": torch.get_num_threads(), "seconds": time.perf_counter() - started,
                      "version": stack_versions()}))
    return 0


def cpu_has_native_bf16():
    """The flags peer_ab.sh reads too: AVX512-BF16 (Zen 4, Cooper Lake on) or AMX."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def cmd_gemm(a):
    """FLOP/s of the best of 5 timed square products (n = 2048), fp32 and bf16: the ceiling
    the shares in peer_ab.sh's table are taken of, measured beside the runs."""
    n, out = 2048, {}
    kinds = [("fp32", torch.float32)]
    # Without native bf16 (AVX2 alone: Zen 3, older Xeons) every bf16 product is
    # emulated: the probe took over 5 minutes there and no bf16 case is run anyway.
    if a.device == "cuda" or cpu_has_native_bf16():
        kinds.append(("bf16", torch.bfloat16))
    else:
        out["bf16"] = None
    for name, dtype in kinds:
        x = torch.randn(n, n, device=a.device).to(dtype)
        y = torch.randn(n, n, device=a.device).to(dtype)
        best = float("inf")
        for _ in range(6):
            if a.device == "cuda":
                torch.cuda.synchronize()
            t = time.perf_counter()
            torch.mm(x, y)
            if a.device == "cuda":
                torch.cuda.synchronize()
            best = min(best, time.perf_counter() - t)
        out[name] = 2 * n ** 3 / best
    print(json.dumps(out))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    i = sub.add_parser("init")
    source = i.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help="a config.json's folder: random weights of that shape")
    source.add_argument("--pretrained", help="a BertModel checkpoint's folder: its encoder, a new head")
    source.add_argument("--family", choices=sorted(FAMILY_BASE), help="a random model of this family")
    i.add_argument("--tokenizer-json", help="with --family: the tokenizer both sides read")
    i.add_argument("--out", required=True)
    i.add_argument("--seed", type=int, default=42)
    i.add_argument("--preset", choices=sorted(PRESETS), help="the runner preset's sizes instead of --config's")
    g = sub.add_parser("gemm")
    g.add_argument("--device", choices=("cpu", "cuda"), default="cuda")
    t = sub.add_parser("train")
    f = sub.add_parser("finetune")
    t.add_argument("--steps", type=int, required=True)
    t.add_argument("--warmup", type=int, required=True)
    t.add_argument("--profile-json", default="", help="then N more steps under torch.profiler; every op's self time per step, "
                   "and the timed steps' phases, written here")
    f.add_argument("--epochs", type=int, required=True)
    f.add_argument("--eval-each-epoch", action="store_true", help="the dev set's metrics after each epoch too")
    f.add_argument("--save-state-at", default="", help="optimizer steps (comma-separated) after which "
                   "accelerator.save_state() writes into --save-dir, as the runner's checkpoints")
    f.add_argument("--save-dir", default="peer-states")
    f.add_argument("--save-final", default="", help="a folder the trained model is saved to at the end")
    for parser in (t, f):
        training_arguments(parser)
    a = p.parse_args()
    return {"init": cmd_init, "train": cmd_train, "finetune": cmd_finetune, "gemm": cmd_gemm}[a.cmd](a)


def training_arguments(t):
    """What train and finetune share."""
    for name in ("--init", "--tokenizer", "--data"):
        t.add_argument(name, required=True)
    t.add_argument("--precision", choices=("fp32", "fp16", "bf16"), required=True)
    t.add_argument("--task", choices=("mrpc", "sst2", "conll", "squad"), default="mrpc",
                   help="conll: token classification from --data's train.conll; squad: question answering "
                        "from --data's train.jsonl (finetune: dev.jsonl answered and scored as run_qa.py does)")
    t.add_argument("--doc-stride", type=int, default=128, help="squad: tokens a window shares with the one before")
    t.add_argument("--qa-loss", choices=("padding", "tokens"), default="padding",
                   help="squad: padding, run_qa.py's (windows padded to max_length, the start and end softmax over "
                        "every position); tokens, the runner's default (windows without padding, dynamic padding, "
                        "each softmax over its window's tokens)")
    t.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    t.add_argument("--batch", type=int, default=32)
    t.add_argument("--max-length", type=int, default=128)
    t.add_argument("--fixed-length", action="store_true", help="pad every batch to max_length")
    t.add_argument("--no-dropout", action="store_true")
    t.add_argument("--log-losses", action="store_true")
    t.add_argument("--seed", type=int, default=42)
    t.add_argument("--lr", type=float, default=2e-5)
    t.add_argument("--weight-decay", type=float, default=0.01)
    t.add_argument("--warmup-ratio", type=float, default=0.1)
    t.add_argument("--lora", metavar="R,ALPHA", help="PEFT LoRA adapters (query, value) on a sequence classifier")


if __name__ == "__main__":
    sys.exit(main())
