#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, made at run time (scripts/fuzz.sh).

Usage: make_seeds.py OUT SOURCE_ROOT SHARED_DIR

Writes OUT/<target>/<seed files>. Seeds come from the project's recipes and
test inputs, from ../shared (GLUE rows, tokenizers, configs, cut down to a few
kilobytes), and from small files written here (safetensors, a torch.save zip,
checkpoint manifests) so that nothing under ../shared is ever committed.
"""
import glob
import hashlib
import io
import json
import os
import pickle
import struct
import sys
import types
import zipfile
from collections import OrderedDict

OUT, SRC, SHARED = sys.argv[1:4]


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def head(path, lines):
    """The first `lines` lines of a file (GLUE splits and vocabularies are long)."""
    with open(path, "rb") as f:
        return b"".join(f.readline() for _ in range(lines))


def copy_globs(target, patterns, lines=None):
    for pattern in patterns:
        for path in sorted(glob.glob(pattern, recursive=True)):
            data = head(path, lines) if lines else open(path, "rb").read()
            rel = os.path.relpath(path, "/").replace("/", "_")
            put(target, rel[-120:], data)


def recipes():
    roots = [os.path.join(SRC, "recipes"), os.path.join(SRC, "tests")]
    copy_globs("recipe_toml", [os.path.join(r, "**", "*.toml") for r in roots])
    copy_globs("recipe_yaml", [os.path.join(r, "**", "*.y*ml") for r in roots])
    # The shapes, small: anchors and aliases, several documents.
    put("recipe_yaml", "anchors.yaml",
        "a0: &a0 [x, y]\na1: &a1 [*a0, *a0]\nrun: {name: r, loggers: [jsonl]}\n"
        "optimizer: &o {type: adamw, lr: 1.0e-3}\n")
    put("recipe_yaml", "two_docs.yaml", "run: {name: a}\n---\nrun: {name: b}\n")


def set_values():
    lines = [
        "optimizer.lr=3e-5", "train.grad_accum=4", "optimizer.betas=[0.9,0.98]",
        "run.loggers=jsonl,console", "data.columns.text_a=sentence", "train.epochs=1e300",
        "run.threads=2", "model.preset=bert-mini", "data.max_length=64", "run.name=x",
        "scheduler.type=cosine", "train.precision=bf16", "optimizer.weight_decay=0.01",
        "run.seed=-1", "data.train_batch_size=9223372036854775807", "model.hidden_size=100",
    ]
    for i in range(0, len(lines), 4):
        put("set_values", "sets-%d.txt" % i, "\n".join(lines[i:i + 4]))


def sweeps():
    copy_globs("sweep_file", [os.path.join(SRC, "recipes", "sweeps", "*.toml")])
    put("sweep_file", "zip_points.toml",
        'base = "base.toml"\nmetric = "eval.accuracy"\ndirection = "lower"\n'
        '[zip]\n"optimizer.lr" = [1e-3, 2e-3]\n"run.seed" = [1, 2]\n'
        '[[points]]\n"train.epochs" = 3\n')
    put("sweep_file", "grid.yaml",
        'base: base.toml\nmetric: eval.f1\nset: {train.epochs: 1}\n'
        'grid:\n  optimizer.lr: [1.0e-4, 3.0e-4]\n  data.train_batch_size: [16, 32]\n')


def jsonl():
    copy_globs("jsonl_input", [os.path.join(SHARED, "golden", "tokenization", "*.jsonl")], lines=12)
    put("jsonl_input", "pairs.jsonl",
        '{"text_a": "a film", "text_b": "the films", "label": "pos"}\n'
        '{"text_a": "b", "text_b": null, "label": "neg"}\n{"text_a": 3, "label": 1}\n')


def tables():
    copy_globs("table_rows", [os.path.join(SHARED, "data", "glue", "*", "*.tsv")], lines=12)
    put("table_rows", "quoted.csv",
        'sentence,label\n"a ""quoted"" film",1\n"two\nlines",0\nplain,1\n')


def tokenizers():
    for path in sorted(glob.glob(os.path.join(SHARED, "golden", "tiny_*", "vocab.txt"))):
        put("vocab_txt", "vocab-%s.txt" % os.path.basename(os.path.dirname(path)), head(path, 1200))
    put("vocab_txt", "small.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\nfilm\n##s\n,\n")
    path = os.path.join(SHARED, "models", "bert-base-uncased", "tokenizer.json")
    if os.path.exists(path):
        tj = json.load(open(path))
        vocab = tj["model"]["vocab"]
        keep = sorted(vocab.items(), key=lambda kv: kv[1])[:1100]
        tj["model"]["vocab"] = {k: i for i, (k, _) in enumerate(keep)}
        tj["added_tokens"] = [t for t in tj["added_tokens"] if t["id"] < len(keep)]
        put("tokenizer_json", "bert-base-uncased-cut.json", json.dumps(tj))
        tj["normalizer"]["lowercase"] = False
        tj["normalizer"]["strip_accents"] = True
        put("tokenizer_json", "cased-strip.json", json.dumps(tj))


def cut_vocabulary(tj, keep):
    """A tokenizer.json with the first `keep` ids of its model's vocabulary (and
    the BPE merges among them); added tokens stay, so every special id remains."""
    model = tj["model"]
    if isinstance(model.get("vocab"), list):  # Unigram: [piece, score] by id
        model["vocab"] = model["vocab"][:keep]
        return
    kept = {k: v for k, v in model["vocab"].items() if v < keep}
    model["vocab"] = kept
    if "merges" in model:
        def parts(m):
            return m.split(" ", 1) if isinstance(m, str) else m
        model["merges"] = [m for m in model["merges"]
                           if len(parts(m)) == 2 and all(p in kept for p in parts(m)) and "".join(parts(m)) in kept]


def tokenizer_pipelines():
    """tokenizer.json files of every pipeline the golden tests hold (BPE, Unigram,
    WordPiece), cut to a few hundred ids, then NUL and three texts to encode."""
    texts = []
    edge = os.path.join(SRC, "tests", "tokenizer", "golden", "roberta_bpe.edge_cases.jsonl")
    for line in open(edge, encoding="utf-8"):
        text = json.loads(line)["text_a"]
        if text not in texts:
            texts.append(text)
    for path in sorted(glob.glob(os.path.join(SRC, "tests", "tokenizer", "golden", "*.tokenizer.json"))):
        tj = json.load(open(path, encoding="utf-8"))
        cut_vocabulary(tj, 400)
        name = os.path.basename(path).replace(".tokenizer.json", "")
        for i in range(0, min(len(texts), 12), 3):
            seed = json.dumps(tj).encode() + b"\0" + "\0".join(texts[i:i + 3]).encode()
            if len(seed) <= 65536:  # scripts/fuzz.sh's -max_len: a longer seed would be cut mid-JSON
                put("tokenizer_pipeline", "%s-%d.bin" % (name, i), seed)


def safetensors_bytes(tensors, metadata=None):
    header, data = {}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata:
        header["__metadata__"] = metadata
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


def small_tensors():
    return [
        ("bert.embeddings.word_embeddings.weight", "F32", [4, 2], struct.pack("<8f", *range(8))),
        ("bert.pooler.dense.bias", "F16", [2], struct.pack("<2e", 0.5, -2.0)),
        ("classifier.weight", "BF16", [1, 2], b"\x80\x3f\x00\x40"),
        ("position_ids", "I64", [1, 3], struct.pack("<3q", 0, 1, 2)),
        ("mask", "BOOL", [2], b"\x01\x00"),
    ]


def safetensors():
    put("safetensors", "small.safetensors", safetensors_bytes(small_tensors(), {"format": "pt"}))
    put("safetensors", "empty.safetensors", safetensors_bytes([]))
    # The golden tiny BERT with only its small tensors (biases, LayerNorms).
    path = os.path.join(SHARED, "golden", "tiny_bert", "model.safetensors")
    if os.path.exists(path):
        raw = open(path, "rb").read()
        n = struct.unpack("<Q", raw[:8])[0]
        header = json.loads(raw[8:8 + n])
        body = raw[8 + n:]
        picked = []
        for name, e in header.items():
            if name == "__metadata__":
                continue
            b, end = e["data_offsets"]
            if end - b <= 512 and len(picked) < 12:
                picked.append((name, e["dtype"], e["shape"], body[b:end]))
        put("safetensors", "tiny_bert-small-tensors.safetensors", safetensors_bytes(picked))


# torch.save's format without torch: data.pkl pickles an OrderedDict of
# torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad,
# backward_hooks), where each storage is a persistent id
# ('storage', torch.FloatStorage, key, 'cpu', numel) naming record data/<key>.
def fake_torch():
    torch = types.ModuleType("torch")
    utils = types.ModuleType("torch._utils")
    torch._utils = utils

    def _rebuild_tensor_v2(*args):
        raise RuntimeError("never called")

    _rebuild_tensor_v2.__module__ = "torch._utils"
    _rebuild_tensor_v2.__qualname__ = "_rebuild_tensor_v2"
    utils._rebuild_tensor_v2 = _rebuild_tensor_v2
    storages = {}
    for name in ("FloatStorage", "HalfStorage", "LongStorage"):
        cls = type(name, (), {"__module__": "torch"})
        setattr(torch, name, cls)
        storages[name] = cls
    sys.modules["torch"] = torch
    sys.modules["torch._utils"] = utils
    return utils, storages


class Storage:
    def __init__(self, cls, key, numel):
        self.cls, self.key, self.numel = cls, key, numel


class Tensor:
    def __init__(self, storage, size, stride, offset=0):
        self.args = (storage, offset, tuple(size), tuple(stride), False, OrderedDict())

    def __reduce__(self):
        return (UTILS._rebuild_tensor_v2, self.args)


class TorchPickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, Storage):
            return ("storage", obj.cls, obj.key, "cpu", obj.numel)
        return None


def pytorch_bin_bytes(entries):
    """entries: (name, storage class name, raw bytes, element size, size, stride)."""
    state = OrderedDict()
    records = {}
    for i, (name, cls, raw, elem, size, stride) in enumerate(entries):
        key = str(i)
        state[name] = Tensor(Storage(STORAGES[cls], key, len(raw) // elem), size, stride)
        records[key] = raw
    pkl = io.BytesIO()
    TorchPickler(pkl, protocol=2).dump(state)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pkl.getvalue())
        for key, raw in records.items():
            z.writestr("archive/data/" + key, raw)
        z.writestr("archive/version", "3\n")
    return out.getvalue()


def pytorch_bin():
    put("pytorch_bin", "small.bin", pytorch_bin_bytes([
        ("bert.embeddings.word_embeddings.weight", "FloatStorage", struct.pack("<8f", *range(8)), 4, [4, 2], [2, 1]),
        ("bert.pooler.dense.bias", "HalfStorage", struct.pack("<2e", 0.5, -2.0), 2, [2], [1]),
        ("transposed", "FloatStorage", struct.pack("<6f", *range(6)), 4, [3, 2], [1, 3]),
        ("position_ids", "LongStorage", struct.pack("<3q", 0, 1, 2), 8, [1, 3], [3, 1]),
    ]))
    put("pytorch_bin", "empty.bin", pytorch_bin_bytes([]))


def manifest(files):
    return json.dumps({"files": {n: {"bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()}
                                 for n, b in files.items()}}, indent=2)


def checkpoints():
    files = {"model.safetensors": b"weights", "training_state.json": b"{}"}
    put("checkpoint_manifest", "valid.txt", "step-00000042\n" + manifest(files))
    put("checkpoint_manifest", "wrong-size.txt",
        "step-00000007\n" + manifest({"model.safetensors": b"weight", "training_state.json": b"{}"}))
    put("checkpoint_manifest", "missing-file.txt", "step-00000003\n" + manifest({"optimizer.pt": b"x"}))
    put("checkpoint_manifest", "no-files.txt", "step-00000100\n{\"format\": 1}")


def configs():
    copy_globs("config_json", [os.path.join(SHARED, "golden", "tiny_*", "config.json"),
                               os.path.join(SHARED, "models", "*", "config.json")])


def model_shapes():
    """Each family's tiny test configs (tests/model/golden) and ../shared's, to
    every family's target: a config of another family is refused by model_type."""
    paths = sorted(glob.glob(os.path.join(SRC, "tests", "model", "golden", "**", "config.json"), recursive=True) +
                   glob.glob(os.path.join(SHARED, "golden", "tiny_*", "config.json")) +
                   glob.glob(os.path.join(SHARED, "models", "*", "config.json")))
    for family in ("bert", "roberta", "distilbert", "electra", "deberta", "modernbert"):
        for path in paths:
            rel = os.path.relpath(path, "/").replace("/", "_")
            put("model_shape_" + family, rel[-120:], open(path, "rb").read())


def run_dirs():
    """NUL-separated summary.json, env.json, recipe.resolved.json, metrics.jsonl, sweep_summary.json."""
    summary = {"status": "completed", "global_step": 6, "total_steps": 6, "total_wall_seconds": 12.5,
               "best": {"metric": "eval.accuracy", "value": 0.75, "step": 3}, "final": {"accuracy": 0.7}}
    env = {"started_utc": "2026-01-02T03:04:05Z", "host": "h", "content_sha256": {"/d/train.tsv": "a" * 64},
           "recipe": {"path": "/r.toml", "overrides": ["optimizer.lr=0.001"]}}
    resolved = {"run": {"name": "demo"}, "train": {"metric_for_best": "eval.accuracy"}}
    events = [{"event": "start", "total_steps": 6}, {"event": "train", "step": 2, "loss": 0.7, "lr": 1e-3},
              {"event": "eval", "step": 3, "accuracy": 0.75, "is_best": True},
              {"event": "checkpoint", "step": 4}]
    metrics = "".join(json.dumps(e) + "\n" for e in events) + '{"event": "tra'
    sweep = {"sweep": "s", "metric": "eval.accuracy", "direction": "higher",
             "points": [{"point": "p0", "overrides": {"optimizer.lr": 1e-3}, "best": 0.7, "run_dir": ""}]}
    parts = [json.dumps(summary), json.dumps(env), json.dumps(resolved), metrics, json.dumps(sweep)]
    put("run_dirs", "whole.bin", "\0".join(parts))
    put("run_dirs", "damaged.bin", "\0".join(["{", "[]", '{"run": 5}', "NaN\n\x01\n", "{}"]))


def hf_cache_layout():
    commit = "1" * 40
    whole = [f"ref main {commit}", "blob c1 {}", "blob w1 weights", "blob t1 {}", "blob v1 [PAD]",
             f"link snapshots/{commit}/config.json ../../blobs/c1",
             f"link snapshots/{commit}/model.safetensors ../../blobs/w1",
             f"link snapshots/{commit}/tokenizer_config.json ../../blobs/t1",
             f"link snapshots/{commit}/vocab.txt ../../blobs/v1"]
    put("hf_cache_layout", "whole.txt", "\n".join(whole))
    put("hf_cache_layout", "broken.txt", "\n".join(whole[:1] + [
        f"link snapshots/{commit}/config.json /etc/passwd", f"link snapshots/{commit}/model.safetensors ../../blobs/gone",
        "blob gone.incomplete x", f"missing {commit}/tokenizer_config.json", "dir refs/v1"]))


def mlflow_answers():
    # The server answers of hostile round 3 (a static page, a redirect, a binary
    # body, wrong JSON types ...), kept as the target's regression inputs.
    copy_globs("mlflow_answer", [os.path.join(SRC, "tests", "fuzz", "mlflow_answer", "*")])


def recipe_nesting():
    # One input per form at the depths of hostile round 4 (20,000 and 65,535
    # levels) and at the limit's edge (64 and 65), kept as regression inputs.
    copy_globs("recipe_nesting", [os.path.join(SRC, "tests", "fuzz", "recipe_nesting", "*")])


UTILS, STORAGES = fake_torch()
for make in (recipes, set_values, sweeps, jsonl, tables, tokenizers, tokenizer_pipelines, safetensors,
             pytorch_bin, checkpoints, configs, model_shapes, run_dirs, hf_cache_layout, mlflow_answers, recipe_nesting):
    make()
