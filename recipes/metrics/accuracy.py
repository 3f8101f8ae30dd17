#!/usr/bin/env python3
"""An example metric program for train.metric_command.

The runner calls it at each evaluation with the path of the split's predictions, a JSONL file of
one object per example: {"id", "label", "prediction" (single-label), "logits"}. It prints one JSON
object of named numbers on stdout; the runner logs each as eval.<name>, next to its own metrics.

    [train]
    metric_command = ["python3", "recipes/metrics/accuracy.py"]
    metric_for_best = "eval.command_accuracy"
"""
import json
import sys

right = total = 0
with open(sys.argv[-1], encoding="utf-8") as predictions:
    for line in predictions:
        example = json.loads(line)
        total += 1
        right += example["prediction"] == example["label"]
print(json.dumps({"command_accuracy": right / total if total else 0.0, "command_examples": total}))
