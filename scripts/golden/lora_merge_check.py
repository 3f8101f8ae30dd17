#!/usr/bin/env python3
"""Compares the runner's merged LoRA export with PEFT's own merge of the runner's adapter export.

For a LoRA run RUN of a sequence-classification task (the runner's e2e test
"a LoRA run trains only its adapters ..." leaves one in build/test-tmp/lora_run/ref/runs/lora/),
export it both ways and check (a venv outside the project, as scripts/golden/lora_parity.py's):
  build/runner export RUN --to /tmp/adapter
  build/runner export RUN --to /tmp/merged --merge
  /work/venv-lora/bin/python scripts/golden/lora_merge_check.py /tmp/adapter /tmp/merged
It loads the adapter folder with PeftModel.from_pretrained on AutoModelForSequenceClassification of
base_model_name_or_path, calls merge_and_unload(), and compares every tensor of its state dict with
the merged folder's model.safetensors. PEFT adds B A x scale to W in float32 (one rounding of the
product, K = r terms, then one of the sum) where the runner sums in float64 and rounds once, so an
element may differ by (r + 2) x 2^-24 of |W| + |B| |A| x scale; every other tensor must be equal.
It prints the largest difference in units of that bound and exits 1 when any exceeds it.

Run that test with RUNNER_KEEP_TEST_TMP=1: a test executable whose tests all pass removes the
directories its tests made under build/test-tmp.
"""
import argparse
import json
import os


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("adapter", help="the folder `runner export RUN --to DIR` wrote")
    p.add_argument("merged", help="the folder `runner export RUN --to DIR --merge` wrote")
    a = p.parse_args()
    import torch
    from peft import PeftModel
    from safetensors.torch import load_file
    from transformers import AutoModelForSequenceClassification
    with open(os.path.join(a.adapter, "adapter_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    runner = load_file(os.path.join(a.merged, "model.safetensors"))
    num_labels = runner["classifier.weight"].shape[0]
    base = AutoModelForSequenceClassification.from_pretrained(config["base_model_name_or_path"],
                                                              num_labels=num_labels, dtype=torch.float32)
    peft_model = PeftModel.from_pretrained(base, a.adapter)
    scale = config["lora_alpha"] / (config["r"] ** 0.5 if config.get("use_rslora") else config["r"])
    adapters = {}
    for name, module in peft_model.named_modules():
        if hasattr(module, "lora_A") and "default" in getattr(module, "lora_A", {}):
            key = name.split("base_model.model.", 1)[-1] + ".weight"
            adapters[key] = (module.lora_A["default"].weight.double(), module.lora_B["default"].weight.double(),
                             module.base_layer.weight.double().clone())
    merged = peft_model.merge_and_unload().state_dict()
    bad, worst = 0, 0.0
    for key, theirs in merged.items():
        if key not in runner:
            if key.endswith("position_ids"):
                continue  # a buffer Transformers keeps out of its files
            print("missing in the runner's file:", key)
            bad += 1
            continue
        ours = runner[key].double()
        diff = (ours - theirs.double()).abs()
        if key in adapters:
            lora_a, lora_b, w = adapters[key]
            bound = (config["r"] + 2) * 2.0 ** -24 * (w.abs() + lora_b.abs() @ lora_a.abs() * scale)
            ratio = float((diff / bound.clamp_min(1e-45)).max())
            worst = max(worst, ratio)
            bad += ratio > 1
            print(f"{key}: merged, largest difference {float(diff.max()):.3g} = {ratio:.3g} x the bound")
        elif float(diff.max()) != 0:
            print(f"{key}: differs by {float(diff.max()):.3g} and was not adapted")
            bad += 1
    extra = sorted(set(runner) - set(merged))
    if extra:
        print("in the runner's file and not in PEFT's model:", extra)
        bad += len(extra)
    print(f"{len(adapters)} merged weights, worst {worst:.3g} x the bound;", "ok" if not bad else "FAILED")
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
