#!/usr/bin/env python3
"""Golden generator: loss trajectories of Transformers' BertForSequenceClassification
for the regression and multi-label problem types.

The loop is that of shared/golden/README.md section 3 (trajectory/, K = 1, batch 8), in
fp32 on the CPU, with the label of each MRPC row replaced by targets made from the row:

  * model: shared/golden/tiny_bert (config.json + model.safetensors), attn_implementation
    "eager", dropout 0, model.train(). Its classifier has two rows. For "regression" the
    classifier is cut to its row 0 (weight[0:1], bias[0:1]), num_labels = 1,
    problem_type = "regression": Transformers' loss is MSELoss()(logits.squeeze(),
    labels.squeeze()). For "multi_label" the two rows stay, num_labels = 2,
    problem_type = "multi_label_classification": BCEWithLogitsLoss()(logits, labels).
  * targets of a row (its MRPC label y and its token count n = len(input_ids)):
      regression:  y * 2.5 + (n % 5) * 0.5          (a float in [0, 4.5], STS-B's range)
      multi-label: [y, n % 2]                        (0/1 per label, float)
  * data: shared/golden/tokenization/mrpc_train.jsonl rows 0..159, batches of 8 in file
    order, right-padded with 0 to the batch's longest row (DataCollatorWithPadding).
  * torch.optim.AdamW(lr 5e-4, betas (0.9, 0.999), eps 1e-8), weight decay 0.01 except
    parameters whose name holds "bias" or "LayerNorm.weight"; transformers.get_scheduler(
    "linear", 5 warm-up steps, 20 steps); clip_grad_norm_(1.0); torch.set_num_threads(1);
    20 optimizer steps (Accelerate with mixed_precision "no" on the CPU adds nothing to this).

Recorded per step: step, loss (float64 of the fp32 loss), grad_norm_preclip, lr.

Command used for tests/train/golden/problem_type_trajectory.json (from the repository root):
  /work/venv-torch/bin/python scripts/golden/problem_type_trajectory.py \
      --out tests/train/golden/problem_type_trajectory.json

Requires torch, transformers (5.x tested), safetensors. Python is used only by golden
generators and benches; the runner never needs it.
"""
import argparse
import json
import os

from golden_loop import trajectory

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SHARED = os.environ.get("RUNNER_SHARED", os.path.join(ROOT, "..", "shared"))
ROWS, BATCH = 160, 8


def targets(row, problem):
    y, n = row["label"], len(row["input_ids"])
    if problem == "regression":
        return y * 2.5 + (n % 5) * 0.5
    return [float(y), float(n % 2)]


def batches(shared, problem):
    import torch
    rows = []
    with open(os.path.join(shared, "golden", "tokenization", "mrpc_train.jsonl"), encoding="utf-8") as f:
        for line in f:
            if len(rows) == ROWS:
                break
            rows.append(json.loads(line))
    out = []
    for b in range(0, ROWS, BATCH):
        part = rows[b:b + BATCH]
        width = max(len(r["input_ids"]) for r in part)
        ids = torch.zeros(len(part), width, dtype=torch.long)
        types = torch.zeros(len(part), width, dtype=torch.long)
        mask = torch.zeros(len(part), width, dtype=torch.long)
        for i, r in enumerate(part):
            n = len(r["input_ids"])
            ids[i, :n] = torch.tensor(r["input_ids"])
            types[i, :n] = torch.tensor(r["token_type_ids"])
            mask[i, :n] = 1
        labels = torch.tensor([targets(r, problem) for r in part], dtype=torch.float32)
        out.append({"input_ids": ids, "token_type_ids": types, "attention_mask": mask, "labels": labels})
    return out


def model_for(shared, problem):
    import torch
    from transformers import BertForSequenceClassification
    model = BertForSequenceClassification.from_pretrained(
        os.path.join(shared, "golden", "tiny_bert"), attn_implementation="eager", hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0, dtype=torch.float32)
    if problem == "regression":
        old = model.classifier
        head = torch.nn.Linear(old.in_features, 1)
        with torch.no_grad():
            head.weight.copy_(old.weight[0:1])
            head.bias.copy_(old.bias[0:1])
        model.classifier = head
        model.num_labels = model.config.num_labels = 1
        model.config.problem_type = "regression"
    else:
        model.config.problem_type = "multi_label_classification"
    model.train()
    return model


def trajectory_of(shared, problem):
    import torch
    torch.manual_seed(0)
    model = model_for(shared, problem)
    return trajectory(model, batches(shared, problem))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shared", default=DEFAULT_SHARED)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    import torch
    import transformers
    torch.set_num_threads(1)
    out = {"generator": "scripts/golden/problem_type_trajectory.py",
           "torch": torch.__version__, "transformers": transformers.__version__,
           "regression": trajectory_of(a.shared, "regression"),
           "multi_label": trajectory_of(a.shared, "multi_label")}
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
