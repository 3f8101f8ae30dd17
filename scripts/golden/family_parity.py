#!/usr/bin/env python3
"""Golden generator: a tiny RobertaForSequenceClassification or DebertaV2ForSequenceClassification
from a fixed seed, its forward pass and gradients, and a 20-step training trajectory, by
Transformers.

No RoBERTa or DeBERTa-v3 checkpoint can be had without a network, so the models are random inits
(initializer_range 0.2 so that the logits and the loss move from the first step, dropout 0,
num_labels 2, vocab_size 1000, hidden_size 32, 2 layers, 4 heads, intermediate 64):
  * --family roberta: RobertaConfig(max_position_embeddings 66, type_vocab_size 1, pad 1,
    bos 0, eos 2, layer_norm_eps 1e-5);
  * --family deberta-v2: DeBERTa-v3's layout, DebertaV2Config(relative_attention, position_buckets
    16 (so that rows of up to 49 tokens reach the log buckets), max_relative_positions 64,
    pos_att_type ["p2c", "c2p"], share_att_key, norm_rel_ebd "layer_norm", position_biased_input
    false, type_vocab_size 0, max_position_embeddings 64, pad 0, bos 1, eos 2, layer_norm_eps 1e-7);
  * --family modernbert: ModernBertConfig(max_position_embeddings 64, local_attention 16 (a window
    of +-8 tokens, which rows of up to 49 tokens exceed), global_attn_every_n_layers 2 (layer 0
    global, layer 1 local), rope_theta 160000 global / 10000 local, norm_eps 1e-5, no biases but
    the classifier's, classifier_pooling "mean", pad 0, bos/cls 1, eos/sep 2);
attn_implementation "eager", torch.manual_seed(1234) before the constructor; saved with
save_pretrained (model.safetensors).
  * data: 20 batches of 8 rows made from torch.Generator seed 7: a row is the first id (bos),
    n-2 ids drawn from [3, 1000), the eos id, with n drawn from [4, 48]; right-padded with the
    pad id to the batch's longest row, attention mask 1 on real tokens; label 0 or 1.
    Row 0 of batch 0 is the longest of its batch, so batch 0 has pads on other rows.
  * forward: batch 0 in model.eval(): logits and loss; then model.train() (dropout 0)
    and one backward: the norm of every parameter's gradient.
  * trajectory: the loop of scripts/golden/problem_type_trajectory.py: torch.optim.AdamW
    (lr 5e-4, betas (0.9, 0.999), eps 1e-8, weight decay 0.01 except names holding "bias"
    or "LayerNorm.weight"), transformers.get_scheduler("linear", 5 warm-up steps, 20),
    clip_grad_norm_(1.0), one thread, 20 steps from the saved weights.

Commands used for tests/model/golden/tiny_<family> and <family>_parity.json (repository root):
  /work/venv-torch/bin/python scripts/golden/family_parity.py --family roberta --out tests/model/golden
  /work/venv-torch/bin/python scripts/golden/family_parity.py --family deberta-v2 --out tests/model/golden
  /work/venv-torch/bin/python scripts/golden/family_parity.py --family modernbert --out tests/model/golden

bf16 trajectory (--bf16-trajectory, writes only <family>_bf16_trajectory.json): the same 20 steps
from the saved tiny_<family> weights under Accelerate's mixed_precision="bf16" on the CPU:
Accelerator(mixed_precision="bf16", cpu=True) prepares the model, AdamW, schedule and a DataLoader
over the same batches; the prepared forward opens and closes torch.autocast("cpu", bfloat16) per
call, accelerator.backward, accelerator.clip_grad_norm_(1.0); per step the fp32 loss it returns,
the pre-clip norm and the lr used; one thread; attn_implementation "eager".
  /work/venv-torch/bin/python scripts/golden/family_parity.py --family roberta --out tests/model/golden --bf16-trajectory
  (and likewise for deberta-v2 and modernbert; accelerate 1.15 tested)

Requires torch, transformers (5.x tested), safetensors. Python is used only by golden
generators and benches; the runner never needs it.
"""
import argparse
import json
import os

from golden_loop import MAX_NORM, STEPS, WARMUP, adamw, trajectory

ROWS, BATCH = 160, 8
VOCAB = 1000
SPECIAL = {"roberta": (1, 0, 2), "deberta-v2": (0, 1, 2), "modernbert": (0, 1, 2)}  # pad, bos, eos


def config(family):
    common = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                  intermediate_size=64, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                  num_labels=2, initializer_range=0.2)
    pad, bos, eos = SPECIAL[family]
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
                                norm_eps=1e-5, classifier_pooling="mean", **common)
    from transformers import DebertaV2Config
    return DebertaV2Config(relative_attention=True, position_buckets=16, max_relative_positions=64,
                           pos_att_type=["p2c", "c2p"], share_att_key=True, norm_rel_ebd="layer_norm",
                           position_biased_input=False, type_vocab_size=0, max_position_embeddings=64,
                           pad_token_id=pad, bos_token_id=bos, eos_token_id=eos, layer_norm_eps=1e-7,
                           pooler_dropout=0.0, pooler_hidden_act="gelu", **common)


def make_batches(family):
    PAD, BOS, EOS = SPECIAL[family]
    import torch
    g = torch.Generator().manual_seed(7)
    out = []
    for b in range(ROWS // BATCH):
        lengths = [int(torch.randint(4, 49, (1,), generator=g)) for _ in range(BATCH)]
        if b == 0:
            lengths[0] = max(lengths) + 1
        width = max(lengths)
        ids = torch.full((BATCH, width), PAD, dtype=torch.long)
        mask = torch.zeros(BATCH, width, dtype=torch.long)
        for i, n in enumerate(lengths):
            body = torch.randint(3, VOCAB, (n - 2,), generator=g)
            ids[i, :n] = torch.cat([torch.tensor([BOS]), body, torch.tensor([EOS])])
            mask[i, :n] = 1
        labels = torch.randint(0, 2, (BATCH,), generator=g)
        out.append({"input_ids": ids, "attention_mask": mask, "labels": labels})
    return out


def forward_and_grads(model, batch):
    model.eval()
    import torch
    with torch.no_grad():
        out = model(**batch)
    logits, loss = out.logits.double().tolist(), float(out.loss.double())
    model.train()
    model.zero_grad()
    model(**batch).loss.backward()
    grads = {n: float(p.grad.double().norm()) for n, p in model.named_parameters() if p.grad is not None}
    model.zero_grad()
    return {"logits": logits, "loss": loss, "grad_norms": grads}


def bf16_trajectory(model, batches):
    import torch
    from accelerate import Accelerator
    from transformers import get_scheduler
    accelerator = Accelerator(mixed_precision="bf16", cpu=True)
    model.train()
    opt = adamw(model)
    sched = get_scheduler("linear", opt, num_warmup_steps=WARMUP, num_training_steps=STEPS)
    dl = torch.utils.data.DataLoader(batches, batch_size=None, shuffle=False)
    model, opt, dl, sched = accelerator.prepare(model, opt, dl, sched)
    seen = set()
    head = accelerator.unwrap_model(model).classifier
    hook = head.register_forward_hook(lambda m, i, o: seen.add(str(o.dtype)))
    steps = []
    for i, batch in enumerate(dl):
        lr = sched.get_last_lr()[0]
        loss = model(**batch).loss
        accelerator.backward(loss)
        norm = accelerator.clip_grad_norm_(model.parameters(), MAX_NORM)
        opt.step()
        sched.step()
        opt.zero_grad()
        steps.append({"step": i + 1, "loss": float(loss.detach().double()),
                      "grad_norm_preclip": float(norm.double()), "lr": lr})
    hook.remove()
    if seen != {"torch.bfloat16"}:
        raise SystemExit(f"autocast was not on: the classifier produced {seen}")
    return steps


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--family", choices=sorted(SPECIAL), required=True)
    p.add_argument("--out", required=True, help="folder: writes tiny_<family>/ and <family>_parity.json")
    p.add_argument("--bf16-trajectory", action="store_true",
                   help="only write <family>_bf16_trajectory.json from the saved tiny_<family>")
    a = p.parse_args()
    import torch
    import transformers
    from transformers import AutoModelForSequenceClassification
    torch.set_num_threads(1)
    folder = os.path.join(a.out, "tiny_" + a.family)
    if a.bf16_trajectory:
        import accelerate
        model = AutoModelForSequenceClassification.from_pretrained(folder, attn_implementation="eager",
                                                                   dtype=torch.float32)
        write_json(os.path.join(a.out, a.family + "_bf16_trajectory.json"),
                   {"generator": "scripts/golden/family_parity.py --bf16-trajectory", "torch": torch.__version__,
                    "transformers": transformers.__version__, "accelerate": accelerate.__version__,
                    "cpu_bf16": "avx512_bf16" in open("/proc/cpuinfo").read(),
                    "trajectory": bf16_trajectory(model, make_batches(a.family))})
        return
    torch.manual_seed(1234)
    model = AutoModelForSequenceClassification.from_config(config(a.family)).float()
    model.config._attn_implementation = "eager"
    model.save_pretrained(folder)
    batches = make_batches(a.family)
    golden = {"generator": "scripts/golden/family_parity.py", "torch": torch.__version__,
              "transformers": transformers.__version__,
              "batches": [{k: v.tolist() for k, v in b.items()} for b in batches],
              "forward": forward_and_grads(model, batches[0])}
    fresh = AutoModelForSequenceClassification.from_pretrained(folder, attn_implementation="eager",
                                                               dtype=torch.float32)
    golden["trajectory"] = trajectory(fresh, batches)
    with open(os.path.join(a.out, a.family + "_parity.json"), "w", encoding="utf-8") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
