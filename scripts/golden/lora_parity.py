#!/usr/bin/env python3
"""Golden generator: LoRA on the tiny token-classification models, by Hugging Face PEFT.

The base models and batches are tests/model/golden/token/'s (scripts/golden/token_classification_parity.py:
random-init tiny *ForTokenClassification models, 20 batches of 8 rows with per-token labels). For each
family in FAMILIES and each scale rule (alpha / r, and rsLoRA's alpha / sqrt(r)), PEFT adds adapters as
a user would:
  LoraConfig(task_type TOKEN_CLS, r 4, lora_alpha 8, lora_dropout 0, target_modules the family's preset
  (PEFT's own for BERT, RoBERTa and DeBERTa-v2; q_lin/v_lin for DistilBERT), use_rslora), get_peft_model
  after torch.manual_seed(4321). TOKEN_CLS makes PEFT train and save the classifier whole.
and writes to --out:
  * <family>[_rslora].adapter/: save_pretrained right after get_peft_model (less PEFT's README.md, with
    base_model_name_or_path the repository's path of the base): adapter_config.json and
    adapter_model.safetensors holding A as PEFT drew it (kaiming_uniform, a = sqrt(5)), B = 0 and the
    classifier, under PEFT's key names; the runner's test copies A from it, so that both start equal;
  * <family>[_rslora].json: the base model's logits on batch 0 (model.eval()), the adapted model's logits
    there at init (B = 0: the same), the trainable parameter names and counts, and the trajectory of
    golden_loop.py's loop over the trainable parameters: AdamW (lr 5e-4, betas (0.9, 0.999), eps 1e-8,
    weight decay 0.01 except names holding "bias" or "LayerNorm.weight"), linear schedule with 5
    warm-up steps of 20, clip_grad_norm_(1.0) (frozen parameters have no gradient and take no part),
    one thread: each step's loss and gradient norm before clipping (and, since the loop is shared, the
    lr it used; the files in tests/model/golden/lora predate that key and hold the rest unchanged).

With --bf16 it writes <family>_bf16.json instead, for BF16_FAMILIES: the same adapters, read back from
<family>.adapter/ (PeftModel.from_pretrained, is_trainable), trained by the same loop with each forward
under torch.autocast("cpu", torch.bfloat16), as Accelerate's mixed_precision="bf16" runs it.

Command used for tests/model/golden/lora/ (repository root; a venv outside the project):
  python3 -m venv /work/venv-lora && /work/venv-lora/bin/pip install torch transformers==5.24.0 peft==0.21.2 safetensors
  /work/venv-lora/bin/python scripts/golden/lora_parity.py --out tests/model/golden/lora
  /work/venv-lora/bin/python scripts/golden/lora_parity.py --out tests/model/golden/lora --bf16

Python is used only by golden generators and benches; the runner never needs it.
"""
import argparse
import json
import os

from golden_loop import trajectory

RANK, ALPHA, SEED = 4, 8, 4321
FAMILIES = {"bert": ["query", "value"], "distilbert": ["q_lin", "v_lin"], "roberta": ["query", "value"],
            "deberta-v2": ["query_proj", "value_proj"]}
BF16_FAMILIES = ["bert", "roberta"]
TOKEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "model", "golden", "token")


def batches_of(family):
    import torch
    with open(os.path.join(TOKEN, family + ".json"), encoding="utf-8") as f:
        stored = json.load(f)["batches"]
    return [{k: torch.tensor(v) for k, v in b.items()} for b in stored]


def logits_of(model, batch):
    import torch
    model.eval()
    with torch.no_grad():
        out = model(**{k: v for k, v in batch.items() if k != "labels"}).logits.double().tolist()
    model.train()
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder for <family>[_rslora].json and .adapter/")
    p.add_argument("--bf16", action="store_true", help="the bf16 autocast trajectories of the saved adapters")
    a = p.parse_args()
    if a.bf16:
        return bf16_trajectories(a.out)
    import peft
    import torch
    import transformers
    from peft import LoraConfig, TaskType, get_peft_model
    from transformers import AutoModelForTokenClassification
    torch.set_num_threads(1)
    os.makedirs(a.out, exist_ok=True)
    for family, targets in FAMILIES.items():
        batches = batches_of(family)
        for rslora in (False, True):
            name = family + ("_rslora" if rslora else "")
            base = AutoModelForTokenClassification.from_pretrained(os.path.join(TOKEN, "tiny_" + family),
                                                                   attn_implementation="eager", dtype=torch.float32)
            base_logits = logits_of(base, batches[0])
            torch.manual_seed(SEED)
            config = LoraConfig(task_type=TaskType.TOKEN_CLS, r=RANK, lora_alpha=ALPHA, lora_dropout=0.0,
                                target_modules=targets, use_rslora=rslora)
            model = get_peft_model(base, config)
            folder = os.path.join(a.out, name + ".adapter")
            model.save_pretrained(folder)
            os.remove(os.path.join(folder, "README.md"))  # PEFT's model card template
            # The base as the repository names it, not this machine's absolute path.
            with open(os.path.join(folder, "adapter_config.json"), encoding="utf-8") as f:
                adapter_config = json.load(f)
            adapter_config["base_model_name_or_path"] = "tests/model/golden/token/tiny_" + family
            with open(os.path.join(folder, "adapter_config.json"), "w", encoding="utf-8") as f:
                json.dump(adapter_config, f, indent=2, sort_keys=True)
                f.write("\n")
            trainable = [n for n, p in model.named_parameters() if p.requires_grad]
            golden = {"generator": "scripts/golden/lora_parity.py", "torch": torch.__version__,
                      "transformers": transformers.__version__, "peft": peft.__version__,
                      "family": family, "r": RANK, "alpha": ALPHA, "rslora": rslora, "target_modules": targets,
                      "base_logits": base_logits, "init_logits": logits_of(model, batches[0]),
                      "trainable": trainable,
                      "trainable_count": sum(p.numel() for p in model.parameters() if p.requires_grad),
                      "trajectory": trajectory(model, batches)}
            with open(os.path.join(a.out, name + ".json"), "w", encoding="utf-8") as f:
                json.dump(golden, f)
                f.write("\n")
            print(name, "trainable", golden["trainable_count"], "last loss", golden["trajectory"][-1]["loss"])


def bf16_trajectories(out):
    import peft
    import torch
    import transformers
    from peft import PeftModel
    from transformers import AutoModelForTokenClassification
    torch.set_num_threads(1)
    for family in BF16_FAMILIES:
        base = AutoModelForTokenClassification.from_pretrained(os.path.join(TOKEN, "tiny_" + family),
                                                               attn_implementation="eager", dtype=torch.float32)
        model = PeftModel.from_pretrained(base, os.path.join(out, family + ".adapter"), is_trainable=True)
        golden = {"generator": "scripts/golden/lora_parity.py --bf16", "torch": torch.__version__,
                  "transformers": transformers.__version__, "peft": peft.__version__, "family": family,
                  "r": RANK, "alpha": ALPHA, "rslora": False, "autocast": "bfloat16",
                  "trainable_count": sum(p.numel() for p in model.parameters() if p.requires_grad),
                  "trajectory": trajectory(model, batches_of(family), autocast=torch.bfloat16)}
        with open(os.path.join(out, family + "_bf16.json"), "w", encoding="utf-8") as f:
            json.dump(golden, f)
            f.write("\n")
        print(family, "bf16 trainable", golden["trainable_count"], "last loss", golden["trajectory"][-1]["loss"])


if __name__ == "__main__":
    main()
