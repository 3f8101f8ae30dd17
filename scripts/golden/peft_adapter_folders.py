#!/usr/bin/env python3
"""Golden generator: LoRA adapter folders written by Hugging Face PEFT itself, with PEFT's logits.

For a test that the runner loads a PEFT adapter folder on its base and gives PEFT's logits. Each
case is a tiny random-init base of tests/model/golden/ loaded as a user would,
  AutoModelForSequenceClassification.from_pretrained(base, num_labels 2, ignore_mismatched_sizes,
  attn_implementation "eager", float32) after torch.manual_seed(4321),
then get_peft_model(LoraConfig(task_type SEQ_CLS, r 4, lora_alpha 8, lora_dropout 0, target_modules the
family's preset, use_rslora, modules_to_save)). The bases:
  * roberta, deberta-v2, modernbert: tests/model/golden/tiny_<family> (family_parity.py's
    *ForSequenceClassification, num_labels 2: every weight, the classifier included, is in the base);
  * bert, distilbert, electra: tests/model/golden/token/tiny_<family> (token_classification_parity.py's
    *ForTokenClassification; the golden folder has no sequence-classification model of these). Loaded
    as SeqCls, the classifier (5 labels there) and the head the token model lacks are new random
    weights: BERT's pooler, DistilBERT's pre_classifier, ELECTRA's classifier.dense/out_proj.
    An adapter folder only reproduces when every such weight is saved in it, so each case's
    modules_to_save also names the module of every weight the base lacks that PEFT's SEQ_CLS
    defaults ("classifier", "score") do not cover: "pooler" for BERT (PEFT matches "classifier" as a
    suffix of the name, so DistilBERT's "pre_classifier" is saved by the default already).
Cases, per family: <family> (scale alpha / r), <family>_rslora (use_rslora, alpha / sqrt(r)), and
where the family has a pooler or head its base holds, a case that also trains it whole:
deberta-v2_pooler (modules_to_save ["pooler"]) and modernbert_head (["head"]); BERT's cases all hold
its pooler (above).

The adapters are made non-trivial: PEFT draws lora_A and zeroes lora_B, so every lora_A and lora_B is
set to 0.1 * normal from torch.Generator seed 97 (in named_parameters order), and every parameter
trained whole (PEFT's modules_to_save copies) gets 0.1 * normal from the same generator added, so
that it differs from the base's weights as well.

Written to --out/<case>/:
  * adapter_config.json, adapter_model.safetensors: model.save_pretrained as PEFT writes them, with
    two changes: base_model_name_or_path is the base's path in the repository
    (tests/model/golden/...), not this machine's absolute path (the one value is replaced in PEFT's
    text, the rest is byte for byte PEFT's), and PEFT's README.md (a model-card template holding the
    absolute path; nothing loads it) is removed;
  * expected.json: the versions, the case's settings, a fixed batch of 3 rows (input_ids,
    attention_mask) and PEFT's logits on it in model.eval(), float32 (stored as doubles), plus two
    reference numbers: the max abs difference between those logits and those of merge_and_unload()
    (on a copy), and between them and the base model's without adapters.
Then the script checks each folder as a user would load it: a fresh base (loaded after a different
seed, so that any weight not in the files would change the logits) and
PeftModel.from_pretrained(base, folder): the stored keys are exactly get_peft_model_state_dict's and
the logits equal those written (exactly); it exits 1 otherwise.

The batch: torch.Generator seed 11; a row is the first id (bos/cls), n-2 ids drawn from [3, 1000), the
eos/sep id, n = 13, 8, 4; right-padded with the pad id, attention mask 1 on real tokens. The special
ids are the bases' (pad, bos, eos): roberta (1, 0, 2), the others (0, 1, 2).

Command used for tests/model/golden/peft_adapters/ (repository root; the venv of
scripts/golden/lora_parity.py, torch 2.15, transformers 5.24.0, peft 0.21.2):
  PYTHONHASHSEED=0 /work/venv-lora/bin/python scripts/golden/peft_adapter_folders.py --out tests/model/golden/peft_adapters
PEFT writes target_modules and modules_to_save in Python's set order, which hangs on the string hash
seed: PYTHONHASHSEED=0 makes adapter_config.json the same from run to run (the script re-runs itself
with it when it is not set).

Python is used only by golden generators and benches; the runner never needs it.
"""
import argparse
import copy
import json
import os
import sys

RANK, ALPHA, SEED, DRAW_SEED, RELOAD_SEED, BATCH_SEED = 4, 8, 4321, 97, 999, 11
NUM_LABELS, VOCAB, LENGTHS = 2, 1000, (13, 8, 4)
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# family: (base folder in the repository, target modules, (pad, bos, eos), modules the base lacks)
FAMILIES = {
    "bert": ("tests/model/golden/token/tiny_bert", ["query", "value"], (0, 1, 2), ["pooler"]),
    "distilbert": ("tests/model/golden/token/tiny_distilbert", ["q_lin", "v_lin"], (0, 1, 2), []),
    "electra": ("tests/model/golden/token/tiny_electra", ["query", "value"], (0, 1, 2), []),
    "roberta": ("tests/model/golden/tiny_roberta", ["query", "value"], (1, 0, 2), []),
    "deberta-v2": ("tests/model/golden/tiny_deberta-v2", ["query_proj", "value_proj"], (0, 1, 2), []),
    "modernbert": ("tests/model/golden/tiny_modernbert", ["Wqkv"], (0, 1, 2), []),
}
# a further case training the base's own pooler or head whole: family -> (case suffix, module)
SAVED_HEAD = {"deberta-v2": ("pooler", "pooler"), "modernbert": ("head", "head")}


def cases():
    for family, (base, targets, special, lacking) in FAMILIES.items():
        yield family, family, False, list(lacking)
        yield family + "_rslora", family, True, list(lacking)
        if family in SAVED_HEAD:
            suffix, module = SAVED_HEAD[family]
            yield family + "_" + suffix, family, False, lacking + [module]


def batch_of(special):
    import torch
    pad, bos, eos = special
    g = torch.Generator().manual_seed(BATCH_SEED)
    width = max(LENGTHS)
    ids = torch.full((len(LENGTHS), width), pad, dtype=torch.long)
    mask = torch.zeros((len(LENGTHS), width), dtype=torch.long)
    for row, n in enumerate(LENGTHS):
        ids[row, 0], ids[row, n - 1] = bos, eos
        ids[row, 1:n - 1] = torch.randint(3, VOCAB, (n - 2,), generator=g)
        mask[row, :n] = 1
    return {"input_ids": ids, "attention_mask": mask}


def load_base(family, seed):
    import torch
    from transformers import AutoModelForSequenceClassification
    torch.manual_seed(seed)  # the weights the base lacks are drawn here
    return AutoModelForSequenceClassification.from_pretrained(
        os.path.join(ROOT, FAMILIES[family][0]), num_labels=NUM_LABELS, ignore_mismatched_sizes=True,
        attn_implementation="eager", dtype=torch.float32)


def logits_of(model, batch):
    import torch
    model.eval()
    with torch.no_grad():
        return model(**batch).logits


def randomise(model):
    """lora_A and lora_B = 0.1 * normal, and 0.1 * normal added to every other trainable parameter
    (PEFT's modules_to_save copies), from one generator, in named_parameters order."""
    import torch
    g = torch.Generator().manual_seed(DRAW_SEED)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if not p.requires_grad:
                continue
            noise = torch.randn(p.shape, generator=g, dtype=torch.float32) * 0.1
            if ".lora_A." in name or ".lora_B." in name:
                p.copy_(noise)
            else:
                assert ".modules_to_save." in name, name
                p.add_(noise)


def set_base_path(folder, family):
    # PEFT writes the base's absolute path on this machine; the golden names the base by its path
    # in the repository instead. Only that one JSON value is replaced, in PEFT's own text.
    path = os.path.join(folder, "adapter_config.json")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    old = json.dumps(json.loads(text)["base_model_name_or_path"])
    assert text.count(old) == 1, old
    text = text.replace(old, json.dumps(FAMILIES[family][0]))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.remove(os.path.join(folder, "README.md"))  # PEFT's model-card template, with the absolute path


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder for one <case>/ folder per case")
    a = p.parse_args()
    if os.environ.get("PYTHONHASHSEED") != "0":  # PEFT's set order in adapter_config.json
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable] + sys.argv)
    import peft
    import safetensors
    import torch
    import transformers
    from peft import LoraConfig, PeftModel, TaskType, get_peft_model
    from peft.utils import get_peft_model_state_dict
    from safetensors.torch import load_file
    torch.set_num_threads(1)
    os.makedirs(a.out, exist_ok=True)
    bad = 0
    for case, family, rslora, modules_to_save in cases():
        base_path, targets, special, _ = FAMILIES[family]
        batch = batch_of(special)
        base = load_base(family, SEED)
        base_logits = logits_of(base, batch).clone()
        config = LoraConfig(task_type=TaskType.SEQ_CLS, r=RANK, lora_alpha=ALPHA, lora_dropout=0.0,
                            target_modules=targets, use_rslora=rslora, modules_to_save=modules_to_save or None)
        model = get_peft_model(base, config)
        randomise(model)
        logits = logits_of(model, batch)
        merged = copy.deepcopy(model).merge_and_unload()
        merge_diff = float((logits_of(merged, batch).double() - logits.double()).abs().max())
        base_diff = float((base_logits.double() - logits.double()).abs().max())
        folder = os.path.join(a.out, case)
        model.save_pretrained(folder)
        set_base_path(folder, family)
        with open(os.path.join(folder, "adapter_config.json"), encoding="utf-8") as f:
            saved_config = json.load(f)
        expected = {"generator": "scripts/golden/peft_adapter_folders.py", "torch": torch.__version__,
                    "transformers": transformers.__version__, "peft": peft.__version__,
                    "safetensors": safetensors.__version__, "case": case, "family": family,
                    "base": base_path, "num_labels": NUM_LABELS, "r": RANK, "lora_alpha": ALPHA,
                    "use_rslora": rslora, "target_modules": targets,
                    "modules_to_save": saved_config["modules_to_save"],
                    "input_ids": batch["input_ids"].tolist(), "attention_mask": batch["attention_mask"].tolist(),
                    "logits": logits.double().tolist(),
                    "max_abs_diff_merged": merge_diff, "max_abs_diff_base_model": base_diff}
        with open(os.path.join(folder, "expected.json"), "w", encoding="utf-8") as f:
            json.dump(expected, f, indent=1)
            f.write("\n")

        # The folder as a user loads it, on a base whose new weights are drawn differently.
        reloaded = PeftModel.from_pretrained(load_base(family, RELOAD_SEED), folder).eval()
        stored = set(load_file(os.path.join(folder, "adapter_model.safetensors")))
        wanted = set(get_peft_model_state_dict(reloaded))
        reload_diff = float((logits_of(reloaded, batch).double() - logits.double()).abs().max())
        ok = stored == wanted and reload_diff == 0.0 and base_diff > 1e-2 and merge_diff < 1e-4
        bad += not ok
        size = sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder))
        print(f"{case}: {len(stored)} keys, {size} bytes, vs base {base_diff:.3g}, merged {merge_diff:.3g}, "
              f"reloaded {reload_diff:.3g}", "ok" if ok else
              f"FAILED (missing {sorted(wanted - stored)}, unexpected {sorted(stored - wanted)})")
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
