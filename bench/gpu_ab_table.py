#!/usr/bin/env python3
"""The table of bench/gpu_ab.sh, from the files its rounds left in WORK:

    WORK/<case>/r-<round>.jsonl   the runner's metrics.jsonl (train events every INTERVAL steps)
    WORK/<case>/p-<round>.json    accelerate_peer.py's JSON line
    WORK/<case>/{r,p}-<round>.mib peak GPU memory over the process (nvidia-smi, MiB)

usage: gpu_ab_table.py WORK INTERVAL CARD PEAK_FP32 PEAK_LOW   (peaks in FLOP/s; 0 = unknown)

Per case: the median over rounds of samples/s and real tokens/s of each side and
their ratio (runner / peer), the largest peak memory of each, and the model FLOPs
utilisation: model FLOPs per step (6 x non-embedding parameters per real token,
plus attention's 12 x layers x hidden x length^2 per sequence; the same batches
on both sides) / step time / the card's dense peak for that precision. The case
"losses" compares the per-step training losses of the two (dropout off, fp32).
"""
import json
import statistics
import sys
from pathlib import Path

# BERT-base's shape (shared/models/bert-base-uncased/config.json).
LAYERS, HIDDEN, FFN = 12, 768, 3072


def runner_side(metrics, interval):
    """Throughput over every train event but the first (the warm-up interval)."""
    events = [json.loads(line) for line in metrics.read_text().splitlines() if '"event":"train"' in line]
    samples = tokens = seconds = 0.0
    for e in events[1:]:
        n = e["effective_batch"] * interval
        s = n / e["samples_per_s"]
        samples, tokens, seconds = samples + n, tokens + e["tokens_per_s"] * s, seconds + s
    out = {"losses": [e["loss"] for e in events]}
    if seconds > 0:
        out.update(samples_per_s=samples / seconds, tokens_per_s=tokens / seconds)
    return out


def peak_mib(path):
    return float(path.read_text()) if path.exists() else float("nan")


def step_flops(peer, padded=False):
    """Training FLOPs of one step (3x the forward's matmuls), on the real tokens or on
    every position of the peer's padded batches (what the card computes unpadded)."""
    per_token = 6 * LAYERS * (4 * HIDDEN * HIDDEN + 2 * HIDDEN * FFN)
    if padded and "padded_tokens_per_step" in peer:
        return per_token * peer["padded_tokens_per_step"] + 12 * LAYERS * HIDDEN * peer["sum_sq_padded_per_step"]
    return per_token * peer["real_tokens_per_step"] + 12 * LAYERS * HIDDEN * peer["sum_sq_len_per_step"]


def median(rounds, key):
    return statistics.median(r[key] for r in rounds)


def case_row(name, runners, peers, peak, runner_mib, peer_mib):
    r_sps, p_sps = median(runners, "samples_per_s"), median(peers, "samples_per_s")
    real, padded = step_flops(peers[0]), step_flops(peers[0], padded=True)
    batch = peers[0]["batch"]

    def mfu(sps):  # on real tokens / on padded positions
        if not peak:
            return "n/a"
        return f"{100 * real * sps / batch / peak:4.1f}% real {100 * padded * sps / batch / peak:4.1f}% padded"

    return (f"{name:<12} | runner {r_sps:7.1f} samples/s {median(runners, 'tokens_per_s'):8.0f} tok/s "
            f"{runner_mib:7.0f} MiB MFU {mfu(r_sps)} | peer {p_sps:7.1f} samples/s "
            f"{median(peers, 'tokens_per_s'):8.0f} tok/s {peer_mib:7.0f} MiB MFU {mfu(p_sps)} | "
            f"{r_sps / p_sps:5.2f}x")


def loss_row(runner, peer):
    pairs = list(zip(runner["losses"], peer["losses"]))[:30]
    worst = max(abs(a - b) / abs(b) for a, b in pairs)
    return f"losses       | first {len(pairs)} steps, dropout off, fp32: largest relative difference {worst:.2e}"


def main():
    work, interval, card = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    peaks = {"fp32": float(sys.argv[4]), "fp16": float(sys.argv[5]), "bf16": float(sys.argv[5])}
    print(f"card: {card}; peaks assumed (dense): fp32 {peaks['fp32']:.3g}, fp16/bf16 {peaks['bf16']:.3g} FLOP/s")
    for case in sorted(p for p in work.iterdir() if p.is_dir()):
        runs = sorted(case.glob("r-*.jsonl"))
        peer_files = sorted(case.glob("p-*.json"))
        runners = [runner_side(f, interval if case.name != "losses" else 1) for f in runs]
        peers = [json.loads(f.read_text()) for f in peer_files]
        if not runners or "samples_per_s" not in runners[0]:
            continue
        if not peers:  # gpu_ab.sh --check: the runner's half only
            print(f"{case.name:<12} | runner {median(runners, 'samples_per_s'):7.1f} samples/s "
                  f"{median(runners, 'tokens_per_s'):8.0f} tok/s | no peer")
            continue
        if case.name == "losses":
            print(loss_row(runners[0], peers[0]))
            continue
        precision = case.name.split("-")[-1]
        runner_mib = max(peak_mib(f.with_suffix(".mib")) for f in runs)
        peer_mib = max(peak_mib(f.with_suffix(".mib")) for f in peer_files)
        print(case_row(case.name, runners, peers, peaks[precision], runner_mib, peer_mib))
    return 0


if __name__ == "__main__":
    sys.exit(main())
