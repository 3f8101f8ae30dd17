#!/usr/bin/env python3
"""An independent reader of the tensorboard logger's files: the Event message is
compiled from the project's .proto by protoc into Python (Debian's
python3-protobuf parses it), every TFRecord CRC is checked with a bit-by-bit
CRC-32C written here from the definition, and the scalars must equal the run's
metrics.jsonl (as float32, the type of simple_value).

usage: read_events.py RUN_DIR PROTO_FILE WORK_DIR
Prints one line per check and a Catch2-like summary that scripts/test.sh counts."""
import importlib
import json
import struct
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "support"))
import catch_summary  # noqa: E402

BOOKKEEPING = {"event", "step", "total_steps", "epoch", "examples", "effective_batch", "is_best"}


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


def main():
    run_dir, proto, work = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    subprocess.run(["protoc", f"--proto_path={proto.parent}", f"--python_out={work}", str(proto)], check=True)
    sys.path.insert(0, str(work))
    pb = importlib.import_module(proto.stem + "_pb2")
    cases = []

    cases.append(("crc32c of '123456789' is 0xE3069283", [crc32c(b"123456789") == 0xE3069283]))
    files = sorted((run_dir / "tensorboard").glob("events.out.tfevents.*"))
    bad, scalars, versions, count = [], {}, [], 0
    for f in files:
        for body in records(f, bad):
            count += 1
            event = pb.Event()
            event.ParseFromString(body)
            if event.HasField("file_version"):
                versions.append(event.file_version)
            for v in event.summary.value:
                scalars[(v.tag, event.step)] = v.simple_value
    cases.append((f"every CRC of {count} records in {len(files)} files verifies",
                  [len(files) >= 1, count > 2, not bad]))
    cases.append(("each file starts with the brain.Event:2 version record",
                  [versions == ["brain.Event:2"] * len(files)]))

    expected = {}
    for line in (run_dir / "metrics.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e.get("event") in ("train", "eval"):
            for k, v in e.items():
                if k not in BOOKKEEPING and isinstance(v, (int, float)) and not isinstance(v, bool):
                    expected[(f"{e['event']}/{k}", e["step"])] = f32(v)
    missing = sorted(set(expected) - set(scalars))
    extra = sorted(set(scalars) - set(expected))
    differ = [k for k in expected if k in scalars and scalars[k] != expected[k]]
    cases.append((f"the {len(scalars)} scalars equal metrics.jsonl's {len(expected)} values",
                  [len(expected) > 10, not missing, not extra, not differ]))
    tags = {t for t, _ in scalars}
    cases.append(("train loss, lr, grad norm, throughput and eval accuracy/f1/loss are there",
                  [t in tags for t in ("train/loss", "train/lr", "train/grad_norm", "train/samples_per_s",
                                       "eval/accuracy", "eval/f1", "eval/loss")]))

    if bad or missing or extra or differ:
        print(f"  bad CRCs {bad[:5]}, missing {missing[:5]}, extra {extra[:5]}, different {differ[:5]}")
    return catch_summary.report([(name, [] if all(c) else ["a check failed"], len(c)) for name, c in cases])


if __name__ == "__main__":
    sys.exit(main())
