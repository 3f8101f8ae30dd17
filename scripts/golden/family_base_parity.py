#!/usr/bin/env python3
"""Golden generator: base-sized BERT, RoBERTa, DeBERTa-v3 and ModernBERT classifiers whose every
weight is a closed-form function of its name and element index, their logits and gradients,
by Transformers.

Base-sized weights are too large to commit, so none are saved: the C++ test
(tests/model/test_family_base_parity.cpp with tests/model/closed_form_weights.h) recomputes
every parameter from the same formula and loads it by name. Only the config, the inputs and
the outputs are written (tests/model/golden/base_<family>.json).

Weights: for parameter `name` (Transformers' parameter name) and element k of its flattened
(row-major) tensor, with h = FNV-1a 32-bit of name's UTF-8 bytes and all arithmetic on
non-negative int64 kept below 2^63 (every product is of values < 2^32 and < 2^27):
    x = (k + h) mod 2^32
    x = ((x >> 16) xor x) * 0x45d9f3b mod 2^32
    x = ((x >> 16) xor x) * 0x45d9f3b mod 2^32
    x = (x >> 16) xor x
    u = ((x mod 2001) - 1000) * 5e-5        (float64, then rounded to float32: in [-0.05, 0.05])
    weight = 1 + u if the lower-cased name holds "norm" and ends in ".weight" (the norms' gains),
             u otherwise.

Configs (2 layers, vocab_size 1000, num_labels 2, dropout 0, attn_implementation "eager"),
otherwise the base models' values:
  * bert: BertConfig, hidden 768, 12 heads, intermediate 3072, max_position_embeddings 512,
    type_vocab_size 2, layer_norm_eps 1e-12, pad 0;
  * roberta: roberta-base's RobertaConfig values: max_position_embeddings 514, type_vocab_size 1,
    layer_norm_eps 1e-5, pad 1, bos 0, eos 2;
  * deberta-v2: microsoft/deberta-v3-base's DebertaV2Config values: relative_attention,
    position_buckets 256, max_relative_positions -1, pos_att_type ["p2c", "c2p"], share_att_key,
    norm_rel_ebd "layer_norm", position_biased_input false, type_vocab_size 0,
    max_position_embeddings 512, layer_norm_eps 1e-7, pooler gelu, pad 0, bos 1, eos 2;
  * modernbert: answerdotai/ModernBERT-base's ModernBertConfig values: intermediate 1152 (GeGLU),
    global_attn_every_n_layers 3 (layer 0 global, layer 1 local), local_attention 128,
    global_rope_theta 160000, local_rope_theta 10000, max_position_embeddings 8192, norm_eps 1e-5,
    no biases but the classifier's, classifier_pooling "mean", classifier_activation "gelu",
    pad 0, bos/cls 1, eos/sep 2.
Inputs: 4 rows of lengths 160, 97, 33, 140 (torch.Generator seed 11 draws the middle ids from
[3, 1000)): bos, the ids, eos, right-padded with pad; labels 1 0 1 0. 160 tokens reach
DeBERTa's log buckets (distances past 128) and ModernBERT's local window (+-64).
Outputs: model.eval() logits and loss under torch.no_grad(); then model.train() and one backward
of the loss: every parameter gradient's 2-norm (float64 of the fp32 gradient). One thread.

Command (repository root; about a minute on 2 cores):
  /work/venv-torch/bin/python scripts/golden/family_base_parity.py --out tests/model/golden
Tested with torch 2.15, transformers 5.24.
"""
import argparse
import json
import os

VOCAB, LENGTHS, LABELS = 1000, (160, 97, 33, 140), (1, 0, 1, 0)
SPECIAL = {"bert": (0, 101, 102), "roberta": (1, 0, 2), "deberta-v2": (0, 1, 2),
           "modernbert": (0, 1, 2)}  # pad, bos, eos
BASE = dict(vocab_size=VOCAB, hidden_size=768, num_hidden_layers=2, num_attention_heads=12,
            intermediate_size=3072, num_labels=2)
DROPOUT0 = dict(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)


def config(family):
    pad, bos, eos = SPECIAL[family]
    if family == "bert":
        from transformers import BertConfig
        return BertConfig(max_position_embeddings=512, type_vocab_size=2, layer_norm_eps=1e-12,
                          pad_token_id=pad, **BASE, **DROPOUT0)
    if family == "roberta":
        from transformers import RobertaConfig
        return RobertaConfig(max_position_embeddings=514, type_vocab_size=1, layer_norm_eps=1e-5,
                             pad_token_id=pad, bos_token_id=bos, eos_token_id=eos, **BASE, **DROPOUT0)
    if family == "deberta-v2":
        from transformers import DebertaV2Config
        return DebertaV2Config(relative_attention=True, position_buckets=256, max_relative_positions=-1,
                               pos_att_type=["p2c", "c2p"], share_att_key=True, norm_rel_ebd="layer_norm",
                               position_biased_input=False, type_vocab_size=0, max_position_embeddings=512,
                               layer_norm_eps=1e-7, pooler_dropout=0.0, pooler_hidden_act="gelu",
                               pooler_hidden_size=768, pad_token_id=pad, bos_token_id=bos, eos_token_id=eos,
                               **BASE, **DROPOUT0)
    from transformers import ModernBertConfig
    shape = dict(BASE, intermediate_size=1152)
    return ModernBertConfig(global_attn_every_n_layers=3, local_attention=128, global_rope_theta=160000.0,
                            local_rope_theta=10000.0, max_position_embeddings=8192, norm_eps=1e-5,
                            classifier_pooling="mean", classifier_activation="gelu", hidden_activation="gelu",
                            pad_token_id=pad, bos_token_id=bos, eos_token_id=eos, cls_token_id=bos,
                            sep_token_id=eos, **shape)


def fnv1a(name):
    h = 0x811C9DC5
    for b in name.encode("utf-8"):
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def closed_form(name, shape):
    import torch
    m = 0xFFFFFFFF
    x = (torch.arange(int(torch.Size(shape).numel()), dtype=torch.int64) + fnv1a(name)) & m
    x = (((x >> 16) ^ x) * 0x45D9F3B) & m
    x = (((x >> 16) ^ x) * 0x45D9F3B) & m
    x = (x >> 16) ^ x
    u = ((x % 2001) - 1000).double() * 5e-5
    lower = name.lower()
    if "norm" in lower and lower.endswith(".weight"):
        u = u + 1
    return u.float().view(shape)


def inputs(family):
    import torch
    pad, bos, eos = SPECIAL[family]
    g = torch.Generator().manual_seed(11)
    width = max(LENGTHS)
    ids = torch.full((len(LENGTHS), width), pad, dtype=torch.long)
    mask = torch.zeros(len(LENGTHS), width, dtype=torch.long)
    for i, n in enumerate(LENGTHS):
        body = torch.randint(3, VOCAB, (n - 2,), generator=g)
        ids[i, :n] = torch.cat([torch.tensor([bos]), body, torch.tensor([eos])])
        mask[i, :n] = 1
    return {"input_ids": ids, "attention_mask": mask, "labels": torch.tensor(LABELS)}


def run(family):
    import torch
    from transformers import AutoModelForSequenceClassification
    cfg = config(family)
    cfg._attn_implementation = "eager"
    model = AutoModelForSequenceClassification.from_config(cfg, attn_implementation="eager").float()
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(closed_form(name, tuple(p.shape)))
    batch = inputs(family)
    model.eval()
    with torch.no_grad():
        out = model(**batch)
    model.train()
    model(**batch).loss.backward()
    return {"config": cfg.to_dict(), "special": dict(zip(("pad", "bos", "eos"), SPECIAL[family])),
            "batch": {k: v.tolist() for k, v in batch.items()},
            "logits": out.logits.double().tolist(), "loss": float(out.loss.double()),
            "param_norms": {n: float(p.detach().double().norm()) for n, p in model.named_parameters()},
            "grad_norms": {n: float(p.grad.double().norm()) for n, p in model.named_parameters()}}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder: writes base_<family>.json")
    p.add_argument("--family", choices=sorted(SPECIAL), action="append")
    a = p.parse_args()
    import torch
    import transformers
    torch.set_num_threads(1)
    for family in a.family or sorted(SPECIAL):
        golden = {"generator": "scripts/golden/family_base_parity.py", "torch": torch.__version__,
                  "transformers": transformers.__version__, **run(family)}
        with open(os.path.join(a.out, "base_" + family + ".json"), "w", encoding="utf-8") as f:
            json.dump(golden, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
