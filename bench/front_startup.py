#!/usr/bin/env python3
"""What a command costs to start in the front runner (`runner`, no LibTorch) and in
the full runner (`runner-torch`): wall seconds (median of --repeat runs) and peak
memory of each, measured in this run, and their ratio. A shell that sources
`runner completion bash` pays the first line at every start.

usage: bench/front_startup.py [--front build/runner] [--full build/runner-torch] [--repeat 7]

--full may name any complete runner (e.g. a build from before the front existed);
the `env` line is the cost of the hand-over itself: the front execs the full runner
found beside it, so there both columns load LibTorch.
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(argv, repeat):
    """Median wall seconds and the largest peak RSS (MB) of `repeat` runs of argv."""
    walls, peaks = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - start)
        peaks.append(usage.ru_maxrss / 1024)  # ru_maxrss is in KiB; an exec keeps the larger
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"front_startup: {' '.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
    return statistics.median(walls), max(peaks)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--front", default=os.path.join(ROOT, "build", "runner"))
    parser.add_argument("--full", default=os.path.join(ROOT, "build", "runner-torch"))
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    runs = tempfile.mkdtemp(prefix="front-startup-")
    commands = [  # (as shown, the arguments)
        ("--help", ["--help"]),
        ("completion bash", ["completion", "bash"]),
        ("ls EMPTY_FOLDER", ["ls", runs]),
        ("validate recipes/smoke/mrpc_smoke.toml",
         ["validate", os.path.join(ROOT, "recipes", "smoke", "mrpc_smoke.toml")]),
        ("env (the front hands it over)", ["env"]),
    ]
    load_before = os.getloadavg()[0]
    print(f"front {args.front}\nfull  {args.full}\n{args.repeat} runs each, median wall time, peak RSS\n")
    print(f"{'command':<40} {'front s':>8} {'full s':>8} {'ratio':>6} {'front MB':>9} {'full MB':>8}")
    for shown, command in commands:
        front_s, front_mb = measure([args.front] + command, args.repeat)
        full_s, full_mb = measure([args.full] + command, args.repeat)
        print(f"{shown:<40} {front_s:8.3f} {full_s:8.3f} {full_s / front_s:6.1f} {front_mb:9.0f} {full_mb:8.0f}")
    os.rmdir(runs)
    load_after, cores = os.getloadavg()[0], os.cpu_count()
    busy = "  BUSY: other work shared the cores" if max(load_before, load_after) > cores / 2 else ""
    print(f"\nload average {load_before:.1f} before, {load_after:.1f} after, {cores} cores{busy}")


if __name__ == "__main__":
    main()
