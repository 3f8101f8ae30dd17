#!/usr/bin/env python3
"""Golden generator: a tiny *ForTokenClassification of each family from a fixed seed, its forward
pass and gradients, and a 20-step training trajectory, by Transformers.

No checkpoint of these families can be had without a network, so the models are random inits
(initializer_range 0.2 so that the logits and the loss move from the first step, dropout 0,
num_labels 5 with id2label O, B-PER, I-PER, B-LOC, I-LOC, vocab_size 1000, hidden 32, 2 layers,
4 heads, intermediate 64), built by AutoModelForTokenClassification.from_config after
torch.manual_seed(1234), attn_implementation "eager", saved with save_pretrained:
  * bert: BertConfig(max_position_embeddings 64, type_vocab_size 2, pad 0);
  * distilbert: DistilBertConfig(dim 32, n_layers 2, n_heads 4, hidden_dim 64, max_position 64, pad 0);
  * electra: ElectraConfig(embedding_size 16, so that embeddings_project is on the path; pad 0);
  * roberta, deberta-v2, modernbert: scripts/golden/family_parity.py's configs (same special ids).
Data: 20 batches of 8 rows from torch.Generator seed 7: a row is the first id (bos/cls), n-2 ids
drawn from [3, 1000), the eos/sep id, n drawn from [4, 48], right-padded with the pad id. Labels
[8, L]: -100 on the first and last token and on the padding (as run_ner.py's alignment gives the
special tokens), -100 on a random fifth of the other tokens (continuation sub-tokens under
label_all_tokens = False), else a class drawn from [0, 5). BERT and ELECTRA get token types 0 on
the first half of each row and 1 after it; the other families read none.
  * forward: batch 0 in model.eval(): logits [8, L, 5] and loss; then model.train() and one backward:
    the norm of every parameter's gradient.
  * trajectory: scripts/golden/family_parity.py's loop: AdamW (lr 5e-4, betas (0.9, 0.999), eps 1e-8,
    weight decay 0.01 except names holding "bias" or "LayerNorm.weight"), linear schedule with 5
    warm-up steps of 20, clip_grad_norm_(1.0), one thread, 20 steps from the saved weights.

Command used for tests/model/golden/token/ (repository root; a venv outside the project):
  python3 -m venv /work/venv-torch && /work/venv-torch/bin/pip install torch transformers safetensors
  /work/venv-torch/bin/python scripts/golden/token_classification_parity.py --out tests/model/golden/token

Requires torch and transformers (5.24 tested). Python is used only by golden generators and benches;
the runner never needs it.
"""
import argparse

from golden_loop import forward_and_grads, write_head_golden

ROWS, BATCH = 160, 8
VOCAB, LABELS = 1000, ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
SPECIAL = {"bert": (0, 1, 2), "distilbert": (0, 1, 2), "electra": (0, 1, 2), "roberta": (1, 0, 2),
           "deberta-v2": (0, 1, 2), "modernbert": (0, 1, 2)}  # pad, bos, eos
TYPED = {"bert", "electra"}


def config(family):
    labels = dict(num_labels=len(LABELS), id2label=dict(enumerate(LABELS)),
                  label2id={n: i for i, n in enumerate(LABELS)})
    common = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                  intermediate_size=64, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                  initializer_range=0.2, **labels)
    pad, bos, eos = SPECIAL[family]
    if family == "bert":
        from transformers import BertConfig
        return BertConfig(max_position_embeddings=64, type_vocab_size=2, pad_token_id=pad, **common)
    if family == "electra":
        from transformers import ElectraConfig
        return ElectraConfig(embedding_size=16, max_position_embeddings=64, type_vocab_size=2, pad_token_id=pad,
                             **common)
    if family == "distilbert":
        from transformers import DistilBertConfig
        return DistilBertConfig(vocab_size=VOCAB, dim=32, n_layers=2, n_heads=4, hidden_dim=64, dropout=0.0,
                                attention_dropout=0.0, max_position_embeddings=64, pad_token_id=pad,
                                initializer_range=0.2, **labels)
    if family == "roberta":
        from transformers import RobertaConfig
        return RobertaConfig(max_position_embeddings=66, type_vocab_size=1, pad_token_id=pad, bos_token_id=bos,
                             eos_token_id=eos, layer_norm_eps=1e-5, **common)
    if family == "modernbert":
        from transformers import ModernBertConfig
        del common["hidden_dropout_prob"], common["attention_probs_dropout_prob"]  # its dropouts default to 0
        return ModernBertConfig(max_position_embeddings=64, local_attention=16, global_attn_every_n_layers=2,
                                global_rope_theta=160000.0, local_rope_theta=10000.0, pad_token_id=pad,
                                bos_token_id=bos, eos_token_id=eos, cls_token_id=bos, sep_token_id=eos,
                                norm_eps=1e-5, **common)
    from transformers import DebertaV2Config
    return DebertaV2Config(relative_attention=True, position_buckets=16, max_relative_positions=64,
                           pos_att_type=["p2c", "c2p"], share_att_key=True, norm_rel_ebd="layer_norm",
                           position_biased_input=False, type_vocab_size=0, max_position_embeddings=64,
                           pad_token_id=pad, bos_token_id=bos, eos_token_id=eos, layer_norm_eps=1e-7, **common)


def make_batches(family):
    pad, bos, eos = SPECIAL[family]
    import torch
    g = torch.Generator().manual_seed(7)
    out = []
    for b in range(ROWS // BATCH):
        lengths = [int(torch.randint(4, 49, (1,), generator=g)) for _ in range(BATCH)]
        width = max(lengths)
        ids = torch.full((BATCH, width), pad, dtype=torch.long)
        mask = torch.zeros(BATCH, width, dtype=torch.long)
        types = torch.zeros(BATCH, width, dtype=torch.long)
        labels = torch.full((BATCH, width), -100, dtype=torch.long)
        for i, n in enumerate(lengths):
            body = torch.randint(3, VOCAB, (n - 2,), generator=g)
            ids[i, :n] = torch.cat([torch.tensor([bos]), body, torch.tensor([eos])])
            mask[i, :n] = 1
            types[i, n // 2:n] = 1
            drawn = torch.randint(0, len(LABELS), (n - 2,), generator=g)
            ignored = torch.rand(n - 2, generator=g) < 0.2
            labels[i, 1:n - 1] = torch.where(ignored, torch.full_like(drawn, -100), drawn)
        batch = {"input_ids": ids, "attention_mask": mask, "labels": labels}
        if family in TYPED:
            batch["token_type_ids"] = types
        out.append(batch)
    return out


def logits_of(out):
    return {"logits": out.logits.double().tolist()}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder: writes tiny_<family>/ and <family>.json per family")
    p.add_argument("--family", choices=sorted(SPECIAL), action="append", help="default: every family")
    a = p.parse_args()
    import torch
    from transformers import AutoModelForTokenClassification
    torch.set_num_threads(1)
    for family in a.family or sorted(SPECIAL):
        write_head_golden(AutoModelForTokenClassification, config(family), lambda: make_batches(family),
                          lambda model, batch: forward_and_grads(model, batch, logits_of), a.out, family,
                          "scripts/golden/token_classification_parity.py")


if __name__ == "__main__":
    main()
