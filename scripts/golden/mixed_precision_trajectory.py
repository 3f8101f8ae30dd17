#!/usr/bin/env python3
"""Golden generator for issue 32 ("Mixed precision trains a different model than it runs").

It reruns the training loop of shared/golden/README.md section 3 ("trajectory/", the K = 1,
batch 8 run) through the real Hugging Face stack (transformers BertForSequenceClassification +
Accelerate), but with Accelerate's mixed precision switched on:

    accelerator = Accelerator(mixed_precision="bf16", cpu=True)       # --precision / --device
    model, optimizer, dl, scheduler = accelerator.prepare(model, optimizer, dl, scheduler)
    for batch in dl:                                                  # no shuffle, 20 batches of 8
        with accelerator.accumulate(model):                           # K = 1
            loss = model(**batch).loss       # the prepared forward opens AND closes its own autocast
            accelerator.backward(loss)
            if accelerator.sync_gradients:
                grad_norm = accelerator.clip_grad_norm_(model.parameters(), 1.0)   # pre-clip norm
            optimizer.step(); scheduler.step(); optimizer.zero_grad()

Accelerate's prepared model wraps `forward` in `torch.autocast(device_type, dtype)` (bf16 on the
CPU) and converts the outputs to fp32.  Because the autocast region is opened and closed by every
forward, torch's autocast weight cache (the bf16 copies of fp32 leaf weights) is dropped after each
forward, so every step's forward sees the weights the previous optimizer step produced.

--stale-weights-defect reproduces the bug of issue 32: ONE outer `torch.autocast` region stays open
for the whole epoch (forward, backward, clipping, optimizer and scheduler step all inside it).
torch only clears its autocast cache when the outermost region exits, so the nested per-forward
regions reuse the bf16 weight copies cast by the first forward: the model keeps training its fp32
master weights but every forward runs the step-1 weights.

The setup is exactly that of section 3:
  * model: shared/golden/tiny_bert (model.safetensors + config.json), loaded with
    hidden_dropout_prob = attention_probs_dropout_prob = 0, model.train(), fp32 master weights;
    attn_implementation="eager": attention as explicit matmul -> * 1/sqrt(d) -> + additive mask ->
    softmax -> matmul, which is what the C++ runner computes (transformers 5 defaults to SDPA).
    transformers 5 scales by `* d**-0.5` where 4.40 divided by sqrt(d); with head dim 16 the
    factor is 0.25, a power of two, so both are exact and identical.
  * parameter names: transformers 5.x BertForSequenceClassification has the same 41 parameter
    names as 4.x (bert.encoder.layer.N.attention.self.query.weight, ...); the script asserts that
    they equal the tensor names in model.safetensors, so no renaming map is needed (it would fail
    loudly if a future version renamed anything).
  * data: shared/golden/tokenization/mrpc_train.jsonl rows 0..159 (input_ids, token_type_ids,
    label), batches of 8 in file order, each padded with 0 to its own longest row
    (attention_mask 1 on real tokens, 0 on padding) -- what DataCollatorWithPadding does.
  * torch.optim.AdamW(lr 5e-4, betas (0.9, 0.999), eps 1e-8), weight decay 0.01 on every parameter
    whose name contains neither "bias" nor "LayerNorm.weight", 0 on those;
    transformers.get_scheduler("linear", warmup 5, 20 training steps); clip_grad_norm_ 1.0;
    torch.set_num_threads(1) (--threads); 20 optimizer steps.
  * after the 20 steps: evaluation on shared/golden/tokenization/mrpc_dev.jsonl rows 0..63, batches
    of 16 padded to their longest, model.eval(), torch.no_grad(): once through the prepared model
    (so under the same autocast, as Accelerate evaluates) and once in plain fp32 (a fresh fp32
    model holding the same trained weights, no autocast anywhere).

Recorded per step: step, loss (float64 of the fp32 loss the prepared model returns), grad_norm_preclip
(float64 of accelerator.clip_grad_norm_'s return), lr used by the step (scheduler value before
scheduler.step()), lr_after_step, the padded seq_len, whether the optimizer step was skipped (only
possible with fp16's GradScaler), and the float64 sum / L2 of all parameters after the step.  Then
the dev evaluation and the final float64 sum / L2 (plus per-parameter sum / L2).

Options:
  --precision bf16|fp16|no     Accelerate mixed_precision (fp16 needs --device cuda)
  --device cpu|cuda            Accelerator(cpu=True) or the default CUDA device
  --threads N                  torch.set_num_threads (default 1, as every shared golden)
  --no-mkldnn                  torch.backends.mkldnn.enabled = False for the whole run
  --stale-weights-defect       the issue-32 defect (see above); not a golden, a detector check
  --validate-fp32 FILE         compare against section 3's trajectory.json "accum1_batch8"
                               (meant for --precision no; writes a "validation" block, exit 1 if
                               a loss or grad norm differs by more than 1e-5 relative)
  --variability                after the run, rerun this script in subprocesses under legitimate
                               variations (no mkldnn, 2 threads, ONEDNN_MAX_CPU_ISA=AVX2 /
                               AVX512_CORE / AVX512_CORE_BF16) and with --stale-weights-defect, and
                               write their differences from this run into a "variability" block
  --out PATH                   output JSON
  --shared DIR                 the shared reference folder (default $RUNNER_SHARED or ../shared)

Commands used for tests/train/golden (from the repository root; see tests/train/golden/README.md):
  python3 scripts/golden/mixed_precision_trajectory.py --precision no --device cpu \
      --validate-fp32 ../shared/golden/trajectory/trajectory.json \
      --out tests/train/golden/trajectory_fp32_cpu.json
  python3 scripts/golden/mixed_precision_trajectory.py --precision bf16 --device cpu --variability \
      --out tests/train/golden/trajectory_bf16_cpu.json

Python is allowed in this repository only for benches and golden generators; the runner never
needs it.  Requires torch, transformers (5.x tested), accelerate, safetensors.
"""
import argparse
import datetime
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SHARED = os.environ.get("RUNNER_SHARED", os.path.join(ROOT, "..", "shared"))

TRAIN_ROWS = 160
TRAIN_BATCH = 8
DEV_ROWS = 64
DEV_BATCH = 16
STEPS = 20
LR, BETAS, EPS, WEIGHT_DECAY = 5e-4, (0.9, 0.999), 1e-8, 0.01
WARMUP = 5
MAX_GRAD_NORM = 1.0
VALIDATION_RTOL = 1e-5


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--precision", choices=("bf16", "fp16", "no"), default="bf16")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--no-mkldnn", action="store_true")
    p.add_argument("--stale-weights-defect", action="store_true")
    p.add_argument("--validate-fp32", metavar="TRAJECTORY_JSON")
    p.add_argument("--variability", action="store_true")
    p.add_argument("--onednn-verbose-summary", action="store_true",
                   help="(used by --variability) count the oneDNN primitives that ran, per implementation")
    p.add_argument("--shared", default=DEFAULT_SHARED)
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    if a.precision == "fp16" and a.device != "cuda":
        p.error("--precision fp16 needs --device cuda (Accelerate has no fp16 autocast on the CPU)")
    if a.stale_weights_defect and a.precision == "no":
        p.error("--stale-weights-defect needs a mixed precision (bf16 or fp16)")
    return a


# ---------------------------------------------------------------------------------------------
# data

def read_rows(path, n):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if len(rows) == n:
                break
            r = json.loads(line)
            rows.append({"input_ids": r["input_ids"], "token_type_ids": r["token_type_ids"],
                         "label": r["label"], "id": r["id"]})
    if len(rows) != n:
        raise SystemExit(f"{path}: wanted {n} rows, found {len(rows)}")
    return rows


def collate(rows):
    """Right-pad to the longest row of the batch with 0 (ids, token types and mask)."""
    import torch
    width = max(len(r["input_ids"]) for r in rows)
    ids = torch.zeros(len(rows), width, dtype=torch.long)
    types = torch.zeros(len(rows), width, dtype=torch.long)
    mask = torch.zeros(len(rows), width, dtype=torch.long)
    for i, r in enumerate(rows):
        n = len(r["input_ids"])
        ids[i, :n] = torch.tensor(r["input_ids"])
        types[i, :n] = torch.tensor(r["token_type_ids"])
        mask[i, :n] = 1
    labels = torch.tensor([r["label"] for r in rows], dtype=torch.long)
    return {"input_ids": ids, "token_type_ids": types, "attention_mask": mask, "labels": labels}


# ---------------------------------------------------------------------------------------------
# model

def load_model(model_dir):
    import torch
    from safetensors import safe_open
    from transformers import BertForSequenceClassification
    model, info = BertForSequenceClassification.from_pretrained(
        model_dir, attn_implementation="eager", hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0, dtype=torch.float32, output_loading_info=True)
    bad = {k: v for k, v in info.items() if v}
    if bad:
        raise SystemExit(f"loading {model_dir} was not clean: {bad}")
    with safe_open(os.path.join(model_dir, "model.safetensors"), "pt") as f:
        file_names = set(f.keys())
    names = [n for n, _ in model.named_parameters()]
    if set(names) != file_names:
        # transformers 5.x keeps the 4.x names for BERT; if that ever changes, a mapping belongs here
        raise SystemExit("parameter names differ from model.safetensors (4.x names): "
                         f"{sorted(set(names) ^ file_names)}")
    assert model.config._attn_implementation == "eager"
    return model


def param_checksums(model):
    import torch
    total_sum, total_sq = 0.0, 0.0
    per_sum, per_l2 = {}, {}
    with torch.no_grad():
        for n, p in model.named_parameters():
            d = p.detach().to("cpu", torch.float64)
            s, sq = d.sum().item(), (d * d).sum().item()
            per_sum[n], per_l2[n] = s, math.sqrt(sq)
            total_sum += s
            total_sq += sq
    return total_sum, math.sqrt(total_sq), per_sum, per_l2


def evaluate(model, batches, device):
    import torch
    model.eval()
    losses, correct, n = [], 0, 0
    with torch.no_grad():
        for b in batches:
            b = {k: v.to(device) for k, v in b.items()}
            out = model(**b)
            losses.append(float(out.loss.item()))
            correct += int((out.logits.argmax(-1) == b["labels"]).sum().item())
            n += b["labels"].numel()
    return {"mean_loss": sum(losses) / len(losses), "accuracy": correct / n, "correct": correct,
            "examples": n, "batch_losses": losses,
            "logits_dtype": str(out.logits.dtype).replace("torch.", "")}


# ---------------------------------------------------------------------------------------------
# provenance

def cpu_info():
    info = {"model_name": platform.processor() or None, "flags": {}}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        flags = []
        for line in out.splitlines():
            key, _, val = line.partition(":")
            if key.strip() == "Model name":
                info["model_name"] = val.strip()
            elif key.strip() == "Flags":
                flags = val.split()
        for f in ("avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_tile",
                  "avx_vnni"):
            info["flags"][f] = f in flags
    except (OSError, subprocess.CalledProcessError) as e:
        info["lscpu_error"] = str(e)
    return info


def provenance(args, accelerator, model_dir):
    import accelerate
    import torch
    import transformers
    cmd = ["python3", os.path.relpath(os.path.abspath(__file__), os.getcwd())] + sys.argv[1:]
    prov = {
        "command": " ".join(shlex.quote(c) for c in cmd),
        "cwd_relative_to_repo": os.path.relpath(os.getcwd(), ROOT),
        "environment": {k: os.environ[k] for k in ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA",
                                                   "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                                   "ATEN_CPU_CAPABILITY") if k in os.environ},
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "accelerate": accelerate.__version__,
        "torch_blas": next((s.split("=", 1)[1] for s in torch.__config__.show().replace(",", " ").split()
                            if s.startswith("BLAS_INFO=")), None),
        "torch_onednn": next((l.strip(" -") for l in torch.__config__.show().splitlines()
                              if "MKL-DNN" in l or "oneDNN" in l), None),
        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "mkldnn_available": torch.backends.mkldnn.is_available(),
        "mkldnn_enabled": torch.backends.mkldnn.enabled,
        "threads": torch.get_num_threads(),
        "cpu": cpu_info(),
        "device": str(accelerator.device),
        "accelerate_native_amp": bool(accelerator.native_amp),
        "accelerate_mixed_precision": accelerator.mixed_precision,
        "model_dir": os.path.relpath(model_dir, ROOT),
        "attn_implementation": "eager",
    }
    if accelerator.device.type == "cuda":
        prov["cuda"] = {"device_name": torch.cuda.get_device_name(), "cuda": torch.version.cuda,
                        "cudnn": torch.backends.cudnn.version(),
                        "allow_tf32_matmul": torch.backends.cuda.matmul.allow_tf32,
                        "allow_bf16_reduced_precision_reduction":
                            torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
                        "allow_fp16_reduced_precision_reduction":
                            torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction}
    return prov


# ---------------------------------------------------------------------------------------------
# the run

def train(args):
    import torch
    from accelerate import Accelerator
    from transformers import get_scheduler

    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: torch.cuda.is_available() is False")
    torch.set_num_threads(args.threads)
    if args.no_mkldnn:
        torch.backends.mkldnn.enabled = False
    golden = os.path.join(args.shared, "golden")
    model_dir = os.path.join(golden, "tiny_bert")

    accelerator = Accelerator(mixed_precision=args.precision, gradient_accumulation_steps=1,
                              cpu=args.device == "cpu")
    model = load_model(model_dir)
    start_sum, start_l2, _, _ = param_checksums(model)
    model.train()

    decay = [p for n, p in model.named_parameters() if not ("bias" in n or "LayerNorm.weight" in n)]
    no_decay_names = [n for n, _ in model.named_parameters() if "bias" in n or "LayerNorm.weight" in n]
    no_decay = [p for n, p in model.named_parameters() if n in no_decay_names]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": WEIGHT_DECAY},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=LR, betas=BETAS, eps=EPS)
    scheduler = get_scheduler("linear", optimizer, num_warmup_steps=WARMUP, num_training_steps=STEPS)

    train_rows = read_rows(os.path.join(golden, "tokenization", "mrpc_train.jsonl"), TRAIN_ROWS)
    dl = torch.utils.data.DataLoader(train_rows, batch_size=TRAIN_BATCH, shuffle=False,
                                     collate_fn=collate)
    model, optimizer, dl, scheduler = accelerator.prepare(model, optimizer, dl, scheduler)

    # Which dtype the classifier Linear really produced: proves autocast is (or is not) on.
    seen_dtypes = set()
    hook = accelerator.unwrap_model(model).classifier.register_forward_hook(
        lambda m, i, o: seen_dtypes.add(str(o.dtype).replace("torch.", "")))

    amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.precision)
    if args.stale_weights_defect:
        # The issue-32 defect: one region around the whole epoch.  The prepared forward's own
        # autocast is nested inside it, and torch clears the cast cache only on the outermost exit.
        outer = torch.autocast(device_type=accelerator.device.type, dtype=amp_dtype)
    else:
        import contextlib
        outer = contextlib.nullcontext()

    steps = []
    with outer:
        for i, batch in enumerate(dl):
            with accelerator.accumulate(model):
                lr_used = scheduler.get_last_lr()[0]
                out = model(**batch)
                loss = out.loss
                accelerator.backward(loss)
                grad_norm = None
                if accelerator.sync_gradients:
                    grad_norm = accelerator.clip_grad_norm_(model.parameters(), MAX_GRAD_NORM)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
            psum, pl2, _, _ = param_checksums(model)
            steps.append({
                "step": i + 1,
                "loss": float(loss.detach().item()),
                "grad_norm_preclip": float(grad_norm.item()) if torch.is_tensor(grad_norm) else grad_norm,
                "lr": lr_used,
                "lr_after_step": scheduler.get_last_lr()[0],
                "optimizer_step_skipped": bool(accelerator.optimizer_step_was_skipped),
                "loss_scale": float(accelerator.scaler.get_scale()) if accelerator.scaler is not None else None,
                "seq_len": int(batch["input_ids"].shape[1]),
                "labels": batch["labels"].tolist(),
                "loss_dtype": str(loss.dtype).replace("torch.", ""),
                "param_sum_after": psum,
                "param_l2_after": pl2,
            })
    hook.remove()
    if len(steps) != STEPS:
        raise SystemExit(f"expected {STEPS} steps, ran {len(steps)}")

    dev_rows = read_rows(os.path.join(golden, "tokenization", "mrpc_dev.jsonl"), DEV_ROWS)
    dev_batches = [collate(dev_rows[j:j + DEV_BATCH]) for j in range(0, DEV_ROWS, DEV_BATCH)]
    # 1) through the prepared model: the same autocast wrapper as training (Accelerate's eval)
    eval_amp = evaluate(model, dev_batches, accelerator.device)
    # 2) plain fp32: a fresh fp32 model with the trained weights, autocast never entered
    plain = load_model(model_dir).to(accelerator.device)
    plain.load_state_dict(accelerator.unwrap_model(model).state_dict())
    with torch.autocast(device_type=accelerator.device.type, enabled=False):
        eval_fp32 = evaluate(plain, dev_batches, accelerator.device)

    fsum, fl2, per_sum, per_l2 = param_checksums(accelerator.unwrap_model(model))
    result = {
        "description": (
            "20 AdamW steps of shared/golden/tiny_bert on MRPC train rows 0..159 (batches of 8, no "
            "shuffle, K=1) through the real Accelerate loop with Accelerator(mixed_precision="
            f"'{args.precision}', cpu={args.device == 'cpu'}); the section-3 recipe of "
            "shared/golden/README.md. Then MRPC dev rows 0..63 evaluated under the prepared "
            "model's autocast and in plain fp32."
            + (" VARIANT --stale-weights-defect: one autocast region open for the whole epoch "
               "(the issue-32 defect); NOT a golden." if args.stale_weights_defect else "")),
        "precision": args.precision,
        "device": args.device,
        "variant": {"threads": args.threads, "mkldnn_disabled": args.no_mkldnn,
                    "stale_weights_defect": args.stale_weights_defect,
                    "onednn_max_cpu_isa": os.environ.get("ONEDNN_MAX_CPU_ISA")},
        "provenance": provenance(args, accelerator, model_dir),
        "data": {
            "train": "shared/golden/tokenization/mrpc_train.jsonl rows 0..159 (input_ids, "
                     "token_type_ids, label), batches of 8 in file order, right-padded with 0 to "
                     "each batch's longest row; attention_mask 1 on tokens, 0 on padding",
            "dev": "shared/golden/tokenization/mrpc_dev.jsonl rows 0..63, batches of 16, padded "
                   "the same way",
        },
        "hyperparameters": {
            "optimizer": "torch.optim.AdamW (torch defaults otherwise: foreach/fused None)",
            "lr": LR, "betas": list(BETAS), "eps": EPS, "weight_decay": WEIGHT_DECAY,
            "no_decay": "parameter names containing 'bias' or 'LayerNorm.weight'",
            "scheduler": "transformers.get_scheduler('linear', num_warmup_steps=5, num_training_steps=20)",
            "max_grad_norm": MAX_GRAD_NORM, "gradient_accumulation_steps": 1,
            "train_batch": TRAIN_BATCH, "steps": STEPS, "dropout": 0.0, "model_mode": "train()",
        },
        "fields": {
            "loss": "float64 of the fp32 micro-batch loss returned by the prepared model "
                    "(Accelerate converts its outputs to fp32); K=1 so it is the step loss",
            "grad_norm_preclip": "float64 of accelerator.clip_grad_norm_'s return value: the "
                                 "global L2 norm of the (unscaled) fp32 gradients before clipping",
            "lr": "learning rate this optimizer step used (scheduler value before scheduler.step())",
            "lr_after_step": "scheduler.get_last_lr() after scheduler.step()",
            "optimizer_step_skipped": "accelerator.optimizer_step_was_skipped (fp16 GradScaler "
                                      "inf/nan skip; always false for bf16 and fp32); Accelerate "
                                      "then also skips the scheduler step",
            "loss_scale": "fp16 only: the GradScaler scale after the step (null without a scaler)",
            "non-finite numbers": "written as the strings \"inf\", \"-inf\", \"nan\" (JSON has no literal)",
            "param_sum_after/param_l2_after": "float64 sum / L2 over all fp32 parameters after the step",
            "dev_eval.autocast": "prepared model (Accelerate's autocast wrapper), eval(), no_grad",
            "dev_eval.fp32": "fresh fp32 model with the trained weights, eval(), no_grad, no autocast",
            "mean_loss": "mean of the 4 dev batch losses (each a CrossEntropy mean over 16)",
        },
        "start_checksum": {"sum": start_sum, "l2": start_l2},
        "classifier_output_dtypes_seen_in_training": sorted(seen_dtypes),
        "steps": steps,
        "dev_eval": {"autocast": eval_amp, "fp32": eval_fp32},
        "final_checksum": {"sum": fsum, "l2": fl2},
        "final_param_sum": per_sum,
        "final_param_l2": per_l2,
        "no_decay_params": no_decay_names,
    }
    return result


# ---------------------------------------------------------------------------------------------
# comparisons

def rel(a, b):
    a, b = float(a), float(b)          # also reads the "inf"/"nan" strings a child may have written
    if a == b:
        return 0.0
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return abs(a - b) / max(abs(b), 1e-30)


def compare_runs(run, ref, name):
    """Per-step differences of `run` from `ref` (both in this script's format or section 3's)."""
    out = {"name": name, "per_step": []}
    worst = {"loss_rel": 0.0, "loss_abs": 0.0, "grad_norm_rel": 0.0, "grad_norm_abs": 0.0,
             "lr_abs": 0.0, "param_sum_after_abs": 0.0, "param_l2_after_rel": 0.0}
    for s, r in zip(run["steps"], ref["steps"]):
        assert s["step"] == r["step"]
        d = {"step": s["step"], "loss": s["loss"], "loss_ref": r["loss"],
             "loss_rel": rel(s["loss"], r["loss"]), "loss_abs": abs(float(s["loss"]) - float(r["loss"])),
             "grad_norm_preclip": s["grad_norm_preclip"], "grad_norm_ref": r["grad_norm_preclip"],
             "grad_norm_rel": rel(s["grad_norm_preclip"], r["grad_norm_preclip"]),
             "grad_norm_abs": abs(float(s["grad_norm_preclip"]) - float(r["grad_norm_preclip"]))}
        out["per_step"].append(d)
        for k in ("loss_rel", "loss_abs", "grad_norm_rel", "grad_norm_abs"):
            if d[k] > worst[k]:
                worst[k], worst[k + "_step"] = d[k], s["step"]
        worst["lr_abs"] = max(worst["lr_abs"], abs(s["lr"] - r["lr"]))
        if "param_sum_after" in r:
            worst["param_sum_after_abs"] = max(worst["param_sum_after_abs"],
                                               abs(s["param_sum_after"] - r["param_sum_after"]))
            worst["param_l2_after_rel"] = max(worst["param_l2_after_rel"],
                                              rel(s["param_l2_after"], r["param_l2_after"]))
    out["worst"] = worst
    out["final_checksum"] = {"sum": run["final_checksum"]["sum"], "sum_ref": ref["final_checksum"]["sum"],
                             "l2": run["final_checksum"]["l2"], "l2_ref": ref["final_checksum"]["l2"],
                             "sum_abs": abs(run["final_checksum"]["sum"] - ref["final_checksum"]["sum"]),
                             "l2_rel": rel(run["final_checksum"]["l2"], ref["final_checksum"]["l2"])}
    if "dev_eval" in run and "dev_eval" in ref:
        out["dev_eval"] = {
            mode: {"mean_loss": run["dev_eval"][mode]["mean_loss"],
                   "mean_loss_ref": ref["dev_eval"][mode]["mean_loss"],
                   "mean_loss_rel": rel(run["dev_eval"][mode]["mean_loss"], ref["dev_eval"][mode]["mean_loss"]),
                   "accuracy": run["dev_eval"][mode]["accuracy"],
                   "accuracy_ref": ref["dev_eval"][mode]["accuracy"]}
            for mode in ("autocast", "fp32")}
    return out


def validate_fp32(result, path):
    with open(path) as f:
        ref = json.load(f)["accum1_batch8"]
    cmp = compare_runs(result, ref, "this script --precision no vs section 3 trajectory.json accum1_batch8")
    names = set(result["final_param_sum"])
    cmp["final_param_sum_worst_abs"] = max(abs(result["final_param_sum"][n] - ref["final_param_sum"][n])
                                           for n in names)
    cmp["final_param_l2_worst_rel"] = max(rel(result["final_param_l2"][n], ref["final_param_l2"][n])
                                          for n in names)
    cmp["no_decay_params_identical"] = result["no_decay_params"] == ref["no_decay_params"]
    cmp["seq_lens_identical"] = [s["seq_len"] for s in result["steps"]] == \
        [m["seq_len"] for m in ref["micro_batches"]]
    cmp["reference_versions"] = "torch 1.13.1 (Debian), transformers 4.40.2, accelerate 0.30.1"
    cmp["rtol"] = VALIDATION_RTOL
    cmp["passed"] = (cmp["worst"]["loss_rel"] <= VALIDATION_RTOL
                     and cmp["worst"]["grad_norm_rel"] <= VALIDATION_RTOL
                     and cmp["worst"]["lr_abs"] <= 1e-12
                     and cmp["no_decay_params_identical"] and cmp["seq_lens_identical"])
    return cmp


def onednn_summary(stdout):
    """Counts of executed oneDNN primitives per (kind, implementation) from ONEDNN_VERBOSE=1."""
    counts = {}
    for line in stdout.splitlines():
        parts = line.split(",")
        if len(parts) > 5 and parts[0] == "onednn_verbose" and "exec" in parts:
            k = parts.index("exec")
            key = f"{parts[k + 2]}:{parts[k + 3]}"
            counts[key] = counts.get(key, 0) + 1
    return counts


VARIANTS = [
    # name, extra args, extra environment
    ("mkldnn_disabled", ["--no-mkldnn"], {}),
    ("threads_2", ["--threads", "2"], {}),
    ("onednn_isa_avx2", [], {"ONEDNN_MAX_CPU_ISA": "AVX2"}),
    ("onednn_isa_avx512_core", [], {"ONEDNN_MAX_CPU_ISA": "AVX512_CORE"}),
    ("onednn_isa_avx512_core_bf16", [], {"ONEDNN_MAX_CPU_ISA": "AVX512_CORE_BF16"}),
    ("rerun_identical_settings", [], {}),
]
DEFECT = ("stale_weights_defect", ["--stale-weights-defect"], {})


def run_child(args, extra, env_extra, tmp, name):
    out = os.path.join(tmp, name + ".json")
    cmd = [sys.executable, os.path.abspath(__file__), "--precision", args.precision,
           "--device", args.device, "--shared", args.shared, "--out", out,
           "--onednn-verbose-summary"]
    if "--threads" not in extra:
        cmd += ["--threads", str(args.threads)]
    if args.no_mkldnn and "--no-mkldnn" not in extra:
        cmd.append("--no-mkldnn")
    cmd += extra
    env = dict(os.environ)
    env.update(env_extra)
    print(f"[variability] {name}: {' '.join(f'{k}={v}' for k, v in env_extra.items())} "
          f"{' '.join(extra)}", file=sys.stderr, flush=True)
    subprocess.run(cmd, env=env, check=True)
    with open(out) as f:
        return json.load(f)


def summarise(cmp, child):
    w = cmp["worst"]
    return {
        "how": child["variant"],
        "onednn_primitives_executed": child.get("onednn_primitives_executed"),
        "max_loss_rel": w["loss_rel"], "max_loss_rel_step": w.get("loss_rel_step"),
        "max_loss_abs": w["loss_abs"],
        "max_grad_norm_rel": w["grad_norm_rel"], "max_grad_norm_rel_step": w.get("grad_norm_rel_step"),
        "max_grad_norm_abs": w["grad_norm_abs"],
        "final_checksum": cmp["final_checksum"],
        "dev_eval": cmp.get("dev_eval"),
        "per_step_loss_rel": [d["loss_rel"] for d in cmp["per_step"]],
        "per_step_grad_norm_rel": [d["grad_norm_rel"] for d in cmp["per_step"]],
    }


def variability(args, result):
    variants = VARIANTS if args.device == "cpu" else [v for v in VARIANTS if v[0] == "rerun_identical_settings"]
    var = {"note": "measured by --variability; documentation only, no test reads it. Each entry "
                   "reruns this script in a fresh process with one change and compares it with "
                   "this file's steps (rel = |x - golden| / |golden|).",
           "variants": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, extra, env_extra in variants:
            child = run_child(args, extra, env_extra, tmp, name)
            var["variants"][name] = summarise(compare_runs(child, result, name), child)
        legit = var["variants"]
        var["legitimate_max"] = {
            "loss_rel": max(v["max_loss_rel"] for v in legit.values()),
            "grad_norm_rel": max(v["max_grad_norm_rel"] for v in legit.values()),
            "final_sum_abs": max(v["final_checksum"]["sum_abs"] for v in legit.values()),
            "final_l2_rel": max(v["final_checksum"]["l2_rel"] for v in legit.values()),
            "dev_autocast_mean_loss_rel": max(v["dev_eval"]["autocast"]["mean_loss_rel"] for v in legit.values()),
            "dev_fp32_mean_loss_rel": max(v["dev_eval"]["fp32"]["mean_loss_rel"] for v in legit.values()),
        }
        name, extra, env_extra = DEFECT
        child = run_child(args, extra, env_extra, tmp, name)
        cmp = compare_runs(child, result, name)
        d = summarise(cmp, child)
        d["per_step_loss"] = [s["loss"] for s in child["steps"]]
        d["per_step_grad_norm"] = [s["grad_norm_preclip"] for s in child["steps"]]
        d["first_step_differing"] = next((s["step"] for s in cmp["per_step"] if s["loss_rel"] > 0), None)
        var["stale_weights_defect"] = d
    var["tolerance_table"] = tolerance_table(var, result)
    var["cross_stack_forward_model_parity"] = cross_stack_forward(args)
    fp32_path = os.path.join(args.shared, "golden", "trajectory", "trajectory.json")
    if os.path.exists(fp32_path):
        with open(fp32_path) as f:
            ref = json.load(f)["accum1_batch8"]
        cmp = compare_runs(result, ref, "this file vs section 3 fp32 golden accum1_batch8")
        var["vs_fp32_section3_golden"] = {
            "max_loss_rel": cmp["worst"]["loss_rel"], "max_loss_rel_step": cmp["worst"].get("loss_rel_step"),
            "max_loss_abs": cmp["worst"]["loss_abs"],
            "max_grad_norm_rel": cmp["worst"]["grad_norm_rel"],
            "max_grad_norm_rel_step": cmp["worst"].get("grad_norm_rel_step"),
            "final_checksum": cmp["final_checksum"],
            "per_step": [{k: d[k] for k in ("step", "loss", "loss_ref", "loss_rel", "loss_abs",
                                            "grad_norm_preclip", "grad_norm_ref", "grad_norm_rel")}
                         for d in cmp["per_step"]],
        }
    return var


def tolerance_table(var, result):
    """For relative tolerances of k * 2^-8 (bf16's spacing: 8 significant bits), which legitimate
    variants stay inside on every step and on how many steps the defect is caught."""
    ulp = 2.0 ** -8
    table = {"unit": "2^-8 = 0.00390625 relative", "rows": []}
    defect = var["stale_weights_defect"]
    for k in (1, 2, 4, 8, 16, 32):
        tol = k * ulp
        row = {"tolerance": f"{k} * 2^-8", "relative": tol}
        for q, key_l in (("loss", "per_step_loss_rel"), ("grad_norm", "per_step_grad_norm_rel")):
            row[q] = {
                "legitimate_variants_passing_all_steps": sorted(
                    n for n, v in var["variants"].items() if max(v[key_l]) <= tol),
                "legitimate_variants_failing": sorted(
                    n for n, v in var["variants"].items() if max(v[key_l]) > tol),
                "defect_steps_outside": [i + 1 for i, x in enumerate(defect[key_l]) if x > tol],
            }
        table["rows"].append(row)
    lm = var["legitimate_max"]
    table["legitimate_max_in_units"] = {"loss": lm["loss_rel"] / ulp, "grad_norm": lm["grad_norm_rel"] / ulp}
    steps12 = {q: max(max(v[key][:2]) for v in var["variants"].values())
               for q, key in (("loss", "per_step_loss_rel"), ("grad_norm", "per_step_grad_norm_rel"))}
    table["legitimate_max_steps_1_2"] = {"loss_rel": steps12["loss"], "grad_norm_rel": steps12["grad_norm"],
                                         "note": "step 1 runs with lr 0, so steps 1 and 2 see the initial "
                                                 "weights: only one forward/backward's rounding differs"}
    return table


def cross_stack_forward(args):
    """One eval-mode forward of the section-2 batch (shared/golden/model_parity/batch.json) with this
    stack, fp32 and under the same autocast, against expected.json (torch 1.13.1 + transformers 4.40.2,
    made on an AVX512-BF16 CPU without AMX).  Shows how far a bf16 forward moves across stacks."""
    import torch
    golden = os.path.join(args.shared, "golden")
    with open(os.path.join(golden, "model_parity", "expected.json")) as f:
        exp = json.load(f)
    with open(os.path.join(golden, "model_parity", "batch.json")) as f:
        b = json.load(f)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.precision)
    device = "cuda" if args.device == "cuda" else "cpu"
    model = load_model(os.path.join(golden, "tiny_bert")).to(device).eval()
    batch = {k: torch.tensor(b[k], device=device) for k in ("input_ids", "token_type_ids",
                                                             "attention_mask", "labels")}
    with torch.no_grad():
        fp32 = model(**batch)
        with torch.autocast(device_type=device, dtype=dtype, enabled=dtype is not None):
            amp = model(**batch)
    ref_fp32 = torch.tensor(exp["logits"], dtype=torch.float64)
    ref_bf16 = torch.tensor(exp["bf16_autocast"]["logits"], dtype=torch.float64)
    lf, la = fp32.logits.double().cpu(), amp.logits.double().cpu()
    return {
        "what": "eval forward of shared/golden/model_parity/batch.json ([4, 74]); 'ref' = "
                "expected.json (torch 1.13.1 + transformers 4.40.2, AVX512-BF16 CPU without AMX)",
        "this_stack_fp32_vs_ref_fp32_logits_max_abs": (lf - ref_fp32).abs().max().item(),
        "this_stack_autocast_vs_this_stack_fp32_logits_max_abs": (la - lf).abs().max().item(),
        "ref_bf16_vs_ref_fp32_logits_max_abs": (ref_bf16 - ref_fp32).abs().max().item(),
        "this_stack_autocast_vs_ref_bf16_logits_max_abs": (la - ref_bf16).abs().max().item(),
        "loss": {"this_stack_fp32": float(fp32.loss), "this_stack_autocast": float(amp.loss),
                 "ref_fp32": exp["loss"], "ref_bf16": exp["bf16_autocast"]["loss"]},
        "this_stack_autocast_vs_ref_bf16_loss_rel": rel(float(amp.loss), exp["bf16_autocast"]["loss"]),
        "this_stack_autocast_vs_ref_fp32_loss_rel": rel(float(amp.loss), exp["loss"]),
    } if dtype is not None else None


def finite_or_string(x):
    """JSON has no inf/nan: write them as strings (possible only with fp16's skipped steps)."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {k: finite_or_string(v) for k, v in x.items()}
    if isinstance(x, list):
        return [finite_or_string(v) for v in x]
    return x


def main(argv):
    args = parse_args(argv)
    if args.onednn_verbose_summary and args.device == "cpu" and "ONEDNN_VERBOSE" not in os.environ:
        # Re-exec with ONEDNN_VERBOSE=1 (it must be set before oneDNN initialises); the log only
        # feeds the primitive counts, it does not change any number.
        env = dict(os.environ, ONEDNN_VERBOSE="1")
        proc = subprocess.run([sys.executable, os.path.abspath(__file__)] + argv, env=env,
                              capture_output=True, text=True)
        sys.stderr.write(proc.stderr)
        if proc.returncode:
            sys.stderr.write(proc.stdout[-4000:])
            return proc.returncode
        with open(args.out) as f:
            result = json.load(f)
        result["onednn_primitives_executed"] = onednn_summary(proc.stdout)
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
        return 0

    result = train(args)
    ok = True
    if args.validate_fp32:
        result["validation"] = validate_fp32(result, args.validate_fp32)
        ok = result["validation"]["passed"]
        w = result["validation"]["worst"]
        print(f"validation vs {args.validate_fp32}: worst loss rel {w['loss_rel']:.3g} (step "
              f"{w.get('loss_rel_step')}), worst grad-norm rel {w['grad_norm_rel']:.3g} (step "
              f"{w.get('grad_norm_rel_step')}), lr abs {w['lr_abs']:.3g}: "
              f"{'PASS' if ok else 'FAIL'}", file=sys.stderr)
    if args.variability:
        result["variability"] = variability(args, result)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(finite_or_string(result), f, indent=1, allow_nan=False)
        f.write("\n")
    s = result["steps"]
    print(f"wrote {args.out}: precision {args.precision}, step 1 loss {s[0]['loss']:.7f} grad norm "
          f"{s[0]['grad_norm_preclip']:.6f}; step 20 loss {s[-1]['loss']:.7f} grad norm "
          f"{s[-1]['grad_norm_preclip']:.6f}; dev autocast {result['dev_eval']['autocast']['mean_loss']:.6f}/"
          f"{result['dev_eval']['autocast']['accuracy']:.4f}, fp32 {result['dev_eval']['fp32']['mean_loss']:.6f}/"
          f"{result['dev_eval']['fp32']['accuracy']:.4f}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
