#!/usr/bin/env python3
"""An independent reader of the tensorboard logger's files: the Event message is
compiled from the project's .proto by protoc into Python (Debian's
python3-protobuf parses it), every TFRecord CRC is checked with a bit-by-bit
CRC-32C written here from the definition, and the scalars must equal the run's
metrics.jsonl (as float32, the type of simple_value).

A resumed run appends to metrics.jsonl (a "start" event with resumed_at_step S,
then steps S+1...) and writes a new events file that opens with a SessionLog
START. TensorBoard then drops every earlier scalar whose step is >= the START
event's step (its EventAccumulator purge); metrics.jsonl's reading is that the
steps after S were redone. Both readings must give the same scalars: in
particular the evaluation logged at step S itself, before the checkpoint the
run resumed from, must survive.

usage: read_events.py PROTO_FILE WORK_DIR RUN_DIR...
Prints one line per check and a Catch2-like summary that scripts/test.sh counts."""
import importlib
import json
import struct
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "support"))
import catch_summary  # noqa: E402

BOOKKEEPING = {"event", "step", "total_steps", "epoch", "examples", "effective_batch", "is_best",
               "wall_time", "elapsed_s"}


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def masked(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def records(path, bad):
    data, pos, out = path.read_bytes(), 0, []
    while pos < len(data):
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        body = data[pos + 12:pos + 12 + length]
        (body_crc,) = struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])
        if masked(crc32c(header)) != length_crc:
            bad.append(f"{path.name}@{pos}: length CRC")
        if masked(crc32c(body)) != body_crc or len(body) != length:
            bad.append(f"{path.name}@{pos}: data CRC")
        out.append(body)
        pos += 16 + length
    return out


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def tensorboard_scalars(run_dir, pb, bad):
    """(tag, step) -> value as TensorBoard shows it, with its restart purge."""
    files = sorted((run_dir / "tensorboard").glob("events.out.tfevents.*"))
    scalars, versions, count, starts = {}, [], 0, []
    times = {}  # (kind, step) -> the Event's wall_time
    for f in files:
        for body in records(f, bad):
            count += 1
            event = pb.Event()
            event.ParseFromString(body)
            if event.HasField("file_version"):
                versions.append(event.file_version)
            if event.HasField("session_log") and event.session_log.status == pb.SessionLog.START:
                starts.append(event.step)
                scalars = {k: v for k, v in scalars.items() if k[1] < event.step}
                times = {k: v for k, v in times.items() if k[1] < event.step}
            for v in event.summary.value:
                scalars[(v.tag, event.step)] = v.simple_value
                times[(v.tag.split("/")[0], event.step)] = event.wall_time
    return files, scalars, versions, count, starts, times


def jsonl_times(run_dir):
    """(kind, step) -> wall_time of the last train or eval event of metrics.jsonl at that step."""
    out = {}
    for line in (run_dir / "metrics.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e.get("event") in ("train", "eval"):
            out[(e["event"], e["step"])] = e.get("wall_time")
    return out


def jsonl_scalars(run_dir):
    """(tag, step) -> float32 value from metrics.jsonl, later sessions replacing redone steps."""
    expected, resumed_at, sessions = {}, [], 0
    for line in (run_dir / "metrics.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e.get("event") == "start":
            sessions += 1
        # Every start after the first is a resume, at step 0 too: a run killed
        # before its first checkpoint was committed resumes from the beginning.
        if e.get("event") == "start" and sessions > 1:
            s = e.get("resumed_at_step", 0)
            resumed_at.append(s)
            expected = {k: v for k, v in expected.items() if k[1] <= s}
        if e.get("event") in ("train", "eval"):
            for k, v in e.items():
                if k not in BOOKKEEPING and isinstance(v, (int, float)) and not isinstance(v, bool):
                    expected[(f"{e['event']}/{k}", e["step"])] = f32(v)
    return expected, resumed_at


def run_cases(run_dir, pb):
    label = run_dir.parent.parent.name + "/" + run_dir.parent.name
    bad, cases = [], []
    files, scalars, versions, count, starts, times = tensorboard_scalars(run_dir, pb, bad)
    expected, resumed_at = jsonl_scalars(run_dir)
    cases.append((f"{label}: every CRC of {count} records in {len(files)} files verifies",
                  [len(files) >= 1, count > 2, not bad]))
    cases.append((f"{label}: each file starts with the brain.Event:2 version record",
                  [versions == ["brain.Event:2"] * len(files)]))
    cases.append((f"{label}: one events file per session ({len(resumed_at)} resumes)",
                  [len(files) == 1 + len(resumed_at), len(starts) == len(resumed_at)]))
    missing = sorted(set(expected) - set(scalars))
    extra = sorted(set(scalars) - set(expected))
    differ = [k for k in expected if k in scalars and scalars[k] != expected[k]]
    cases.append((f"{label}: the {len(scalars)} scalars equal metrics.jsonl's {len(expected)} values",
                  [len(expected) > 10, not missing, not extra, not differ]))
    logged = jsonl_times(run_dir)
    cases.append((f"{label}: each scalar's wall_time is its metrics.jsonl event's wall_time",
                  [len(times) > 5, all(logged.get(k) == t for k, t in times.items())]))
    tags = {t for t, _ in scalars}
    cases.append((f"{label}: train loss, lr, grad norm, throughput and eval accuracy/f1/loss are there",
                  [t in tags for t in ("train/loss", "train/lr", "train/grad_norm", "train/samples_per_s",
                                       "eval/accuracy", "eval/f1", "eval/loss")]))
    if bad or missing or extra or differ:
        print(f"  {label}: bad CRCs {bad[:5]}, missing {missing[:5]}, extra {extra[:5]}, different {differ[:5]}")
    return cases


def main():
    proto, work = Path(sys.argv[1]), Path(sys.argv[2])
    subprocess.run(["protoc", f"--proto_path={proto.parent}", f"--python_out={work}", str(proto)], check=True)
    sys.path.insert(0, str(work))
    pb = importlib.import_module(proto.stem + "_pb2")
    cases = [("crc32c of '123456789' is 0xE3069283", [crc32c(b"123456789") == 0xE3069283])]
    for run_dir in sys.argv[3:]:
        cases += run_cases(Path(run_dir), pb)
    return catch_summary.report([(name, [] if all(c) else ["a check failed"], len(c)) for name, c in cases])


if __name__ == "__main__":
    sys.exit(main())
