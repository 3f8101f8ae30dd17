#!/usr/bin/env python3
"""The table of bench/peer_ab.sh (CPU), from the files its rounds left in WORK:

    WORK/<case>/r-<round>.jsonl    the runner's metrics.jsonl (train events every WARMUP steps)
    WORK/<case>/r2-<round>.jsonl   the same for --runner2, when given
    WORK/<case>/p-<round>.json     accelerate_peer.py's JSON line
    WORK/<case>/*.kib              peak resident set of each runner process (/usr/bin/time)
    WORK/gemm-{before,after}.json  the GEMM ceiling (fp32, bf16 FLOP/s) of the peer's torch
    WORK/gemm-runner-{before,after}.json  gemm_bench --ceiling: oneDNN, the BLAS and LibTorch in the runner's process
    WORK/<case>-job/{r,p}-<round>.time  a job row's wall seconds and peak KiB (/usr/bin/time)

usage: peer_ab_table.py WORK [CASE]   (with CASE: that case's row alone)

Per case: the median over rounds of samples/s of each side, the ratio runner / peer,
and each side's model FLOP/s as a share of the ceiling: model FLOPs per step (6 x
non-embedding parameters per real token, plus attention's 12 x layers x hidden x
length^2 per sequence: the peer counts both over the same batches the runner
trains on; DeBERTa's relative-position terms are left out, so its share is low) / step time / the larger of the two ceiling measurements in the run.

A job row (a case ending in -job): the median over rounds of each side's process wall
time, the ratio peer / runner, the runner's checkpoint stall (the time its loop waited
for checkpoints, summed from metrics.jsonl) beside the peer's time in save_state() and
save_pretrained(), the peak resident sets, and each side's dev F1 after the last epoch.
"""
import json
import statistics
import sys
from pathlib import Path


def runner_side(metrics):
    """samples/s over every train event but the first (the warm-up interval)."""
    events = [json.loads(line) for line in metrics.read_text().splitlines() if '"event":"train"' in line]
    samples = seconds = 0.0
    interval = events[0]["step"] if events else 0
    for prev, e in zip(events, events[1:]):
        n = e["effective_batch"] * (e["step"] - prev["step"])
        samples, seconds = samples + n, seconds + n / e["samples_per_s"]
    return samples / seconds if seconds > 0 else float("nan"), interval


def step_flops(peer, shape, frozen_base=False):
    """A step's model FLOPs: 6 per weight and token (2 forward, 2 the input's gradient, 2 the
    weight's), 4 when the weights are frozen (LoRA: no weight gradient; the rank-8 adapters'
    own products are under 5% of a layer's), plus the attention's products."""
    layers, hidden, ffn, ffn_matrices = shape
    per_token = (4 if frozen_base else 6) * layers * (4 * hidden * hidden + ffn_matrices * hidden * ffn)
    return per_token * peer["real_tokens_per_step"] + 12 * layers * hidden * peer["sum_sq_len_per_step"]


def model_shape(case):
    """Layers, hidden, feed-forward width and feed-forward matrices of the case's model
    (MiniLM-L6, or BERT-Mini's sizes; ModernBERT's GeGLU has three matrices of 1.5 x hidden)."""
    if case.startswith("minilm"):
        return 6, 384, 1536, 2
    if case.startswith("modernbert"):
        return 4, 256, 384, 3
    return 4, 256, 1024, 2


def wall_and_kib(time_file):
    wall, kib = time_file.read_text().split()[-2:]
    return float(wall), float(kib)


def runner_job(metrics):
    """(checkpoint stall seconds, dev F1 of the last evaluation) of one runner job."""
    events = [json.loads(line) for line in metrics.read_text().splitlines()]
    stall = sum(e.get("stall_s", 0.0) for e in events if e.get("event") == "checkpoint")
    evals = [e for e in events if e.get("event") == "eval"]
    return stall, evals[-1].get("f1", float("nan")) if evals else float("nan")


JOB_HEADER = ("case               | runner s | peer s | ratio (peer / runner) | runner stall s / peer save s "
              "| peak MiB runner / peer | dev F1 runner / peer | rounds")


def job_row(case):
    runs = sorted(case.glob("r-*.time"))
    peers = sorted(case.glob("p-*.time"))
    r_wall = statistics.median(wall_and_kib(f)[0] for f in runs)
    p_wall = statistics.median(wall_and_kib(f)[0] for f in peers)
    r_mib = max(wall_and_kib(f)[1] for f in runs) / 1024
    p_mib = max(wall_and_kib(f)[1] for f in peers) / 1024
    jobs = [runner_job(f) for f in sorted(case.glob("r-*.jsonl"))]
    p_json = [json.loads(f.read_text()) for f in sorted(case.glob("p-*.json"))]
    stall = statistics.median(j[0] for j in jobs)
    save = statistics.median(p["save_s"] for p in p_json)
    r_f1 = statistics.median(j[1] for j in jobs)
    p_f1 = statistics.median(p.get("f1", float("nan")) for p in p_json)
    return (f"{case.name:<18} | {r_wall:8.1f} | {p_wall:6.1f} | {p_wall / r_wall:5.2f}x | "
            f"{stall:.2f} / {save:.2f} | {r_mib:.0f} / {p_mib:.0f} | {r_f1:.4f} / {p_f1:.4f} | {len(runs)}")


def done_cases(work, only):
    cases = sorted(p for p in work.iterdir() if p.is_dir() and (p / "p-1.json").exists())
    return [c for c in cases if only is None or c.name == only]


def main():
    work = Path(sys.argv[1])
    only = sys.argv[2] if len(sys.argv) > 2 else None
    cases = done_cases(work, only)
    jobs = [c for c in cases if c.name.endswith("-job")]
    steady = [c for c in cases if not c.name.endswith("-job")]
    if steady:
        steady_table(work, steady)
    if jobs:
        print(JOB_HEADER)
        for case in jobs:
            print(job_row(case), flush=True)
    return 0


def steady_table(work, cases):
    ceilings = [json.loads(f.read_text()) for f in sorted(work.glob("gemm-*.json"))]
    # bf16 is null where the CPU has no native bf16 (the probe skips it; so do the bf16 cases).
    ceiling = {k: max((c[k] or 0.0) for c in ceilings) for k in ("fp32", "bf16")}
    # Which library reached the fp32 ceiling: gemm_bench names its own; the peer's file is torch.mm.
    top = max(ceilings, key=lambda c: c["fp32"] or 0.0)
    source = top.get("fp32_from", "the peer's torch.mm")
    bf16 = f"{ceiling['bf16'] / 1e9:.0f} GFLOP/s" if ceiling["bf16"] else "not measured (no native bf16)"
    print(f"GEMM ceiling (the best 2048^3 product of any library here, over the measurements so far): "
          f"fp32 {ceiling['fp32'] / 1e9:.0f} GFLOP/s ({source}), bf16 {bf16}")
    libraries = {}
    for c in ceilings:
        for name, flops in c.get("by_library", {"the peer's torch.mm": c["fp32"]}).items():
            libraries[name] = max(libraries.get(name, 0.0), flops or 0.0)
    print("  by library: " + ", ".join(f"{n} {v / 1e9:.0f}" for n, v in sorted(libraries.items())) + " GFLOP/s")
    print("case             | runner samples/s (share) | peer samples/s (share) | ratio "
          "| runner2 samples/s (share) | ratio2 | rounds | peak MiB runner / peer")
    for case in cases:
        peers = [json.loads(f.read_text()) for f in sorted(case.glob("p-*.json"))]
        flops, batch = step_flops(peers[0], model_shape(case.name), case.name.endswith("-lora")), peers[0]["batch"]
        peak = ceiling["bf16" if case.name.endswith("bf16") else "fp32"]

        def share(sps):
            return f"{100 * flops * sps / batch / peak:4.1f}%"

        p_sps = statistics.median(p["samples_per_s"] for p in peers)
        cells = [f"{case.name:<16}"]
        ratios = []
        for side in ("r", "r2"):
            files = sorted(case.glob(f"{side}-*.jsonl"))
            if not files:
                continue
            sps = statistics.median(runner_side(f)[0] for f in files)
            cells.append(f"{sps:7.1f} ({share(sps)})")
            if side == "r":
                cells.append(f"{p_sps:7.1f} ({share(p_sps)})")
            ratios.append(f"{sps / p_sps:5.2f}x")
        r_kib = max(float(f.read_text().split()[-1]) for f in case.glob("r-*.kib"))
        p_mib = max(p["peak_allocated_mib"] for p in peers)
        row = cells[:3] + ratios[:1] + cells[3:] + ratios[1:]
        print(" | ".join(row) + f" | {len(peers)} | {r_kib / 1024:.0f} / {p_mib:.0f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
