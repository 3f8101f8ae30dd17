#!/usr/bin/env python3
"""Loads the runner's LoRA adapter exports with PEFT and compares their logits with the runner's.

The runner's test "lora: the PEFT export of an adapted token model" (tests/model/test_lora.cpp)
gives each family's tiny token model of tests/model/golden/token adapters on the preset targets
(r 4, alpha 8, the classifier saved whole), seeds A and B with fixed draws, and writes
build/test-tmp/lora_export/<family>/ with write_peft_adapter (adapter_config.json,
adapter_model.safetensors) and runner_logits.json (its logits on the token golden's batch 0).
Then (a venv outside the project, as scripts/golden/lora_parity.py's):
  /work/venv-lora/bin/python scripts/golden/lora_export_check.py build/test-tmp/lora_export \
      --out tests/model/golden/lora/export_check.json
loads each folder with PeftModel.from_pretrained(AutoModelForTokenClassification of the tiny base,
folder), checks that every key of the file was loaded (no unexpected key) and that every adapter and
saved-module tensor PEFT expects was in it (no missing key), compares PEFT's logits with the runner's
(1e-5), and records PEFT's logits in --out for the runner's test to hold its own against. It exits 1
when a family fails.

Run that test with RUNNER_KEEP_TEST_TMP=1: a test executable whose tests all pass removes the
directories its tests made under build/test-tmp.
"""
import argparse
import json
import os

FAMILIES = ["bert", "distilbert", "roberta", "deberta-v2"]
TOKEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "model", "golden", "token")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("root", help="folder holding one exported adapter folder per family")
    p.add_argument("--out", help="JSON file recording PEFT's logits and the key checks")
    a = p.parse_args()
    import peft
    import torch
    import transformers
    from peft import PeftModel
    from peft.utils import get_peft_model_state_dict
    from safetensors.torch import load_file
    from transformers import AutoModelForTokenClassification
    torch.set_num_threads(1)
    record = {"generator": "scripts/golden/lora_export_check.py", "torch": torch.__version__,
              "transformers": transformers.__version__, "peft": peft.__version__, "families": {}}
    bad = 0
    for family in FAMILIES:
        folder = os.path.join(a.root, family)
        with open(os.path.join(TOKEN, family + ".json"), encoding="utf-8") as f:
            batch = {k: torch.tensor(v) for k, v in json.load(f)["batches"][0].items() if k != "labels"}
        base = AutoModelForTokenClassification.from_pretrained(os.path.join(TOKEN, "tiny_" + family),
                                                               attn_implementation="eager", dtype=torch.float32)
        model = PeftModel.from_pretrained(base, folder).eval()
        stored = set(load_file(os.path.join(folder, "adapter_model.safetensors")))
        expected = set(get_peft_model_state_dict(model))
        missing, unexpected = sorted(expected - stored), sorted(stored - expected)
        with torch.no_grad():
            logits = model(**batch).logits.double()
        with open(os.path.join(folder, "runner_logits.json"), encoding="utf-8") as f:
            runner = torch.tensor(json.load(f), dtype=torch.float64)
        diff = float((logits - runner).abs().max())
        ok = not missing and not unexpected and diff <= 1e-5
        bad += not ok
        record["families"][family] = {"missing_keys": missing, "unexpected_keys": unexpected,
                                      "keys": len(stored), "max_logit_diff": diff, "peft_logits": logits.tolist()}
        print(f"{family}: {len(stored)} keys, missing {missing}, unexpected {unexpected}, "
              f"max logit diff {diff:.3g}", "ok" if ok else "FAILED")
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump(record, f)
            f.write("\n")
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
