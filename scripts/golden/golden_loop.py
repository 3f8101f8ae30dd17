"""The 20-step training loop that the trajectory goldens share.

family_parity.py, token_classification_parity.py, problem_type_trajectory.py and lora_parity.py
train with it: torch.optim.AdamW (lr 5e-4, betas (0.9, 0.999), eps 1e-8, weight decay 0.01 except
parameters whose name holds "bias" or "LayerNorm.weight") over the parameters that take a gradient
(all of them but under PEFT), transformers.get_scheduler("linear", 5 warm-up steps, 20 steps),
clip_grad_norm_(1.0); per step the loss, the gradient norm before clipping and the lr the step used.

write_head_golden saves a tiny random-init model of a head and its golden record (one
forward_and_grads), for token_classification_parity.py and qa_head_parity.py.

Python is used only by golden generators and benches; the runner never needs it.
"""
import json
import os

LR, BETAS, EPS, WEIGHT_DECAY, MAX_NORM = 5e-4, (0.9, 0.999), 1e-8, 0.01, 1.0
STEPS, WARMUP = 20, 5


def adamw(model):
    import torch
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    decay = [p for n, p in named if "bias" not in n and "LayerNorm.weight" not in n]
    rest = [p for n, p in named if "bias" in n or "LayerNorm.weight" in n]
    return torch.optim.AdamW([{"params": decay, "weight_decay": WEIGHT_DECAY},
                              {"params": rest, "weight_decay": 0.0}], lr=LR, betas=BETAS, eps=EPS)


def trajectory(model, batches, autocast=None):
    """autocast (a torch dtype): each forward inside torch.autocast("cpu", that dtype), opened and
    closed per forward as Accelerate's prepared model does, the loss taken in float32; the backward,
    clipping and step outside it."""
    import contextlib
    import torch
    from transformers import get_scheduler
    region = (lambda: torch.autocast("cpu", dtype=autocast)) if autocast else contextlib.nullcontext
    model.train()
    opt = adamw(model)
    sched = get_scheduler("linear", opt, num_warmup_steps=WARMUP, num_training_steps=STEPS)
    steps = []
    for i, batch in enumerate(batches):
        lr = sched.get_last_lr()[0]
        with region():
            loss = model(**batch).loss
        loss = loss.float()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)
        opt.step()
        sched.step()
        opt.zero_grad()
        steps.append({"step": i + 1, "loss": float(loss.detach().double()),
                      "grad_norm_preclip": float(norm.double()), "lr": lr})
    return steps


def forward_and_grads(model, batch, outputs):
    """batch 0's record: in model.eval(), outputs(model's output) (its logits, as lists) and the loss;
    then in model.train(), one backward: the norm of every parameter's gradient."""
    import torch
    model.eval()
    with torch.no_grad():
        out = model(**batch)
    result = outputs(out)
    result["loss"] = float(out.loss.double())
    model.train()
    model.zero_grad()
    model(**batch).loss.backward()
    result["grad_norms"] = {n: float(p.grad.double().norm()) for n, p in model.named_parameters()
                            if p.grad is not None}
    model.zero_grad()
    return result


def write_head_golden(auto_class, config, make_batches, record_forward, out, family, generator):
    """Saves a tiny random-init auto_class model of config (seed 1234, float32, eager attention) as
    out/tiny_<family>/ and writes out/<family>.json: the generator and versions, the architecture,
    the batches make_batches() gives, record_forward(model, batches[0]) as "forward" and the
    trajectory of the saved model reloaded."""
    import torch
    import transformers
    folder = os.path.join(out, "tiny_" + family)
    torch.manual_seed(1234)
    model = auto_class.from_config(config).float()
    model.config._attn_implementation = "eager"
    model.save_pretrained(folder)
    batches = make_batches()
    golden = {"generator": generator, "torch": torch.__version__,
              "transformers": transformers.__version__, "architecture": type(model).__name__,
              "batches": [{k: v.tolist() for k, v in b.items()} for b in batches],
              "forward": record_forward(model, batches[0])}
    fresh = auto_class.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32)
    golden["trajectory"] = trajectory(fresh, batches)
    with open(os.path.join(out, family + ".json"), "w", encoding="utf-8") as f:
        json.dump(golden, f)
        f.write("\n")
    print(family, type(model).__name__, "loss", golden["forward"]["loss"])
