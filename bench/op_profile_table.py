#!/usr/bin/env python3
"""Where a training step's time goes, the runner's against the peer's, op by op.

    op_profile_table.py RUNNER.json PEER.json [--top 12]

RUNNER.json comes from `step_bench --recipe ... --ops-json`, PEER.json from
`accelerate_peer.py train ... --profile-json` (same case, same batches), both
{"ops": [{"name", "self_ms", "calls"}]} per optimizer step, self time (children
excluded) from LibTorch's profiler on each side, and "phases": the forward,
backward and optimizer (clipping, update, schedule, clearing the gradients) ms
per step of steps run without the profiler. Prints the phases, then the ops
grouped by what they do, each group's ms per step on both sides and the
difference, then each side's largest ops. Both profilers add their own overhead
per op, so the op totals run above the phases', most for ops called thousands
of times a step (LibTorch 1.13's bmm without MKL: a select view per matrix);
the phases are the times to trust. The groups go by op name: an optimizer written with plain arithmetic ops
(the peer's torch.optim.AdamW on the CPU, the runner's) lands in "elementwise";
the phases tell the optimizer's share.
"""
import argparse
import json
import re

# First match wins; a name is matched without its "aten::" prefix.
GROUPS = [
    ("matrix products", r"(^(mm|addmm|bmm|baddbmm|matmul|linear|_addmm_activation)$|threaded_bmm|ThreadedBmm)"),
    ("attention (softmax, masks, fused kernels)",
     r"(softmax|scaled_dot_product|_efficient_attention|_flash_attention|PackedAttention|masked_fill)"),
    ("layer norm", r"layer_norm"),
    ("GELU and other activations", r"^(gelu|gelu_backward|tanh|tanh_backward|silu|silu_backward)$"),
    ("dropout", r"(dropout|bernoulli|CounterDropout)"),
    ("embeddings", r"(embedding|index_select|index_add)"),
    ("optimizer-only ops (fused updates, norms)", r"(_foreach_|adam|lerp|addcdiv|addcmul|linalg_vector_norm|norm$)"),
    ("fills, copies, casts, concatenation",
     r"^(fill_|zero_|zeros|zeros_like|copy_|to|_to_copy|clone|contiguous|cat|stack|empty|empty_like|"
     r"empty_strided)$"),
    ("elementwise arithmetic and reductions", r"^(add|add_|mul|mul_|sub|div|div_|sum|mean|neg|where|ne|eq)$"),
]


def group_of(name):
    bare = name[len("aten::"):] if name.startswith("aten::") else name
    for label, pattern in GROUPS:
        if re.search(pattern, bare):
            return label
    return "other (autograd bookkeeping, views, loss)"


def grouped(ops):
    out = {}
    for op in ops:
        label = group_of(op["name"])
        out[label] = out.get(label, 0.0) + op["self_ms"]
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runner")
    p.add_argument("peer")
    p.add_argument("--top", type=int, default=12)
    a = p.parse_args()
    runner, peer = (json.load(open(path)) for path in (a.runner, a.peer))
    print(f"{'phases (ms per step, no profiler)':<44} | {'runner':>8} | {'peer':>8} | {'peer - runner':>13}")
    for name in ("forward", "backward", "optimizer"):
        x, y = runner.get("phases", {}).get(name, 0.0), peer.get("phases", {}).get(name, 0.0)
        print(f"{name:<44} | {x:8.1f} | {y:8.1f} | {y - x:13.1f}")
    r, q = grouped(runner["ops"]), grouped(peer["ops"])
    labels = [label for label, _ in GROUPS] + ["other (autograd bookkeeping, views, loss)"]
    print(f"{'ops (self ms per step)':<44} | {'runner':>8} | {'peer':>8} | {'peer - runner':>13}")
    for label in labels:
        print(f"{label:<44} | {r.get(label, 0):8.1f} | {q.get(label, 0):8.1f} | {q.get(label, 0) - r.get(label, 0):13.1f}")
    total_r, total_q = sum(r.values()), sum(q.values())
    print(f"{'all ops':<44} | {total_r:8.1f} | {total_q:8.1f} | {total_q - total_r:13.1f}")
    for side, data in (("runner", runner), ("peer", peer)):
        top = ", ".join(f"{o['name']} {o['self_ms']:.1f}" for o in data["ops"][:a.top])
        print(f"{side} largest ops (self ms per step): {top}")


if __name__ == "__main__":
    main()
