#!/usr/bin/env python3
"""The table of bench/accuracy_ab.sh: per task and metric, each side's mean and sample
standard deviation over its seeds, and the difference of the means in pooled standard
deviations, sqrt(((n1-1) s1^2 + (n2-1) s2^2) / (n1 + n2 - 2)): below 1 is issue 27's
parity line. Reads RESULTS/TASK-SIDE-SEED.json (one JSON object each).

    accuracy_table.py RESULTS
"""
import glob
import json
import math
import os
import statistics
import sys

METRICS = {"mrpc": ("accuracy", "f1"), "mrpc-lora": ("accuracy", "f1"), "sst2": ("accuracy",)}


def results(out):
    rows = []
    for path in sorted(glob.glob(os.path.join(out, "*-*-*.json"))):
        with open(path, encoding="utf-8") as f:
            rows.append(json.load(f))
    return rows


def pooled_sd(a, b):
    if len(a) < 2 or len(b) < 2:
        return float("nan")
    va, vb = statistics.variance(a), statistics.variance(b)
    return math.sqrt(((len(a) - 1) * va + (len(b) - 1) * vb) / (len(a) + len(b) - 2))


def summary(values):
    if not values:
        return "-"
    sd = statistics.stdev(values) if len(values) > 1 else float("nan")
    return f"{statistics.mean(values):.4f} ± {sd:.4f} (n={len(values)})"


def main():
    rows = results(sys.argv[1])
    print("| task | metric | runner mean ± sd | Hugging Face mean ± sd | difference / pooled sd |")
    print("|---|---|---|---|---|")
    for task, metrics in METRICS.items():
        sides = {s: [r for r in rows if r["task"] == task and r["side"] == s] for s in ("runner", "peer")}
        if not any(sides.values()):
            continue
        for metric in metrics:
            # A result carried from an earlier study may lack a metric (its "source" says why).
            ours = [r[metric] for r in sides["runner"] if metric in r]
            theirs = [r[metric] for r in sides["peer"] if metric in r]
            if not ours or not theirs:
                continue
            pooled = pooled_sd(ours, theirs)
            gap = (statistics.mean(ours) - statistics.mean(theirs)) / pooled if pooled > 0 else float("nan")
            print(f"| {task} | {metric} | {summary(ours)} | {summary(theirs)} | {gap:+.2f} |")
    for task in METRICS:
        for side in ("runner", "peer"):
            done = sorted((r["seed"], r[METRICS[task][0]], r["seconds"], "source" in r) for r in rows
                          if r["task"] == task and r["side"] == side)
            if done:
                cells = ", ".join(f"{seed}: {value:.4f} ({seconds:.0f} s){'*' if carried else ''}"
                                  for seed, value, seconds, carried in done)
                print(f"{task} {side}: {cells}")
    if any("source" in r for r in rows):
        print("* carried from an earlier study (the file's \"source\" says which)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
