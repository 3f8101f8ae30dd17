#!/usr/bin/env python3
"""Golden generator: a tiny *ForQuestionAnswering of each family from a fixed seed, its forward
pass and gradients, and a 20-step training trajectory, by Transformers.

No checkpoint of these families can be had without a network, so the models are random inits with
scripts/golden/token_classification_parity.py's configs (initializer_range 0.2, dropout 0 (also
DistilBERT's qa_dropout), vocab_size 1000, hidden 32, 2 layers, 4 heads, intermediate 64) but
Transformers' default num_labels 2 (start and end), built by AutoModelForQuestionAnswering.from_config
after torch.manual_seed(1234), attn_implementation "eager", saved with save_pretrained.
Data: token_classification_parity.py's 20 batches of 8 rows (torch.Generator seed 7, the same ids,
masks and token types), with answer positions from a second generator (seed 11) in place of the tags:
row 0 of each batch answers at the first token (start = end = 0, run_qa.py's unanswerable window);
row 1 starts past the padded width (Transformers clamps it to the width and ignores it) and ends
inside; the others start in [1, n-1) and end within 4 tokens after, before the last real token.
  * forward: batch 0 in model.eval(): start and end logits [8, L] and the loss; then model.train()
    and one backward: the norm of every parameter's gradient.
  * trajectory: scripts/golden/golden_loop.py's loop (AdamW lr 5e-4, linear schedule with 5 warm-up
    steps of 20, clip_grad_norm_(1.0), one thread) from the saved weights.
With --tokens-only, <family>_tokens.json instead, from the saved tiny_<family>/ and the same batches:
the loss the runner trains by default (model.qa_loss_includes_padding = false), Transformers' loss
on start and end logits whose padding positions are torch.finfo(float32).min, so that each softmax
runs over its row's tokens; batch 0's loss in model.eval(), and the trajectory with that loss.

Command used for tests/model/golden/qa/ (repository root; a venv outside the project holding torch
and transformers, e.g. python3 -m venv /work/venv-torch && /work/venv-torch/bin/pip install torch
transformers safetensors):
  /work/venv-torch/bin/python scripts/golden/qa_head_parity.py --out tests/model/golden/qa
  /work/venv-torch/bin/python scripts/golden/qa_head_parity.py --out tests/model/golden/qa --tokens-only

Requires torch and transformers (5.24 tested). Python is used only by golden generators and benches;
the runner never needs it.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import token_classification_parity as token  # noqa: E402  (its configs and batches)
from golden_loop import forward_and_grads, trajectory, write_head_golden  # noqa: E402


def config(family):
    c = token.config(family)
    c.num_labels = 2  # resets id2label and label2id to LABEL_0, LABEL_1
    if family == "distilbert":
        c.qa_dropout = 0.0
    return c


def with_positions(batches):
    import torch
    g = torch.Generator().manual_seed(11)
    out = []
    for batch in batches:
        lengths = batch["attention_mask"].sum(1).tolist()
        width = batch["input_ids"].size(1)
        starts, ends = [], []
        for i, n in enumerate(lengths):
            if i == 0:
                start = end = 0
            else:
                start = int(torch.randint(1, n - 1, (1,), generator=g))
                end = min(start + int(torch.randint(0, 5, (1,), generator=g)), n - 2)
                if i == 1:
                    start = width + 3
            starts.append(start)
            ends.append(end)
        b = {k: v for k, v in batch.items() if k != "labels"}
        b["start_positions"] = torch.tensor(starts)
        b["end_positions"] = torch.tensor(ends)
        out.append(b)
    return out


def span_logits_of(out):
    return {"start_logits": out.start_logits.double().tolist(), "end_logits": out.end_logits.double().tolist()}


def tokens_only_loss(out, batch, positions):
    """Transformers' question answering loss (positions clamped to the width, the width ignored, the
    mean of the start and end cross-entropy) on logits masked to finfo.min at the padding."""
    import torch
    pad = batch["attention_mask"] == 0
    width = out.start_logits.size(1)
    ce = torch.nn.CrossEntropyLoss(ignore_index=width)
    def side(logits, key):
        return ce(logits.masked_fill(pad, torch.finfo(logits.dtype).min), positions[key].clamp(0, width))
    return (side(out.start_logits, "start_positions") + side(out.end_logits, "end_positions")) / 2


def tokens_only(model):
    """model, whose loss is tokens_only_loss; its parameters keep their names under "model."."""
    import types
    import torch

    class TokensOnly(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, **batch):
            positions = {k: batch.pop(k) for k in ("start_positions", "end_positions")}
            return types.SimpleNamespace(loss=tokens_only_loss(self.model(**batch), batch, positions))

    return TokensOnly()


def write_tokens_golden(out, family):
    import torch
    import transformers
    from transformers import AutoModelForQuestionAnswering
    folder = os.path.join(out, "tiny_" + family)
    load = lambda: AutoModelForQuestionAnswering.from_pretrained(folder, attn_implementation="eager",  # noqa: E731
                                                                 dtype=torch.float32)
    batches = with_positions(token.make_batches(family))
    model = tokens_only(load())
    model.eval()
    with torch.no_grad():
        loss = float(model(**dict(batches[0])).loss.double())
    golden = {"generator": "scripts/golden/qa_head_parity.py --tokens-only", "torch": torch.__version__,
              "transformers": transformers.__version__, "forward": {"loss": loss},
              "trajectory": trajectory(tokens_only(load()), [dict(b) for b in batches])}
    with open(os.path.join(out, family + "_tokens.json"), "w", encoding="utf-8") as f:
        json.dump(golden, f)
        f.write("\n")
    print(family, "tokens-only loss", loss)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder: writes tiny_<family>/ and <family>.json per family")
    p.add_argument("--family", choices=sorted(token.SPECIAL), action="append", help="default: every family")
    p.add_argument("--tokens-only", action="store_true",
                   help="write <family>_tokens.json: the loss over each row's tokens (from tiny_<family>/)")
    a = p.parse_args()
    import torch
    from transformers import AutoModelForQuestionAnswering
    torch.set_num_threads(1)
    for family in a.family or sorted(token.SPECIAL):
        if a.tokens_only:
            write_tokens_golden(a.out, family)
            continue
        write_head_golden(AutoModelForQuestionAnswering, config(family),
                          lambda: with_positions(token.make_batches(family)),
                          lambda model, batch: forward_and_grads(model, batch, span_logits_of), a.out, family,
                          "scripts/golden/qa_head_parity.py")


if __name__ == "__main__":
    main()
