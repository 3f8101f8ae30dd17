"""Hugging Face side of scripts/cuda_check.sh (needs torch and transformers; the
runner itself never needs Python).

  hf_interop.py make DIR                 a randomly initialised BertForSequenceClassification
                                         with bert-base-uncased's config, saved by save_pretrained
  hf_interop.py pairs FILE               32 MRPC dev pairs as runner predict input
  hf_interop.py compare DIR INPUT PRED   from_pretrained(DIR) logits vs runner predict's output;
                                         exit 1 when they differ by more than 1e-4
"""
import csv, json, os, shutil, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("RUNNER_SHARED", os.path.join(ROOT, "..", "shared"))
MODEL = os.path.join(os.environ.get("RUNNER_MODELS", os.path.join(SHARED, "models")), "bert-base-uncased")
DATA = os.environ.get("RUNNER_DATA", os.path.join(SHARED, "data"))


def make(out):
    import torch
    from transformers import BertConfig, BertForSequenceClassification
    torch.manual_seed(0)
    model = BertForSequenceClassification(BertConfig.from_pretrained(MODEL, num_labels=2))
    model.save_pretrained(out, safe_serialization=True)
    for name in ("vocab.txt", "tokenizer.json"):
        shutil.copy(os.path.join(MODEL, name), out)
    print("wrote", out, sorted(os.listdir(out)))


def pairs(out):
    with open(os.path.join(DATA, "glue", "MRPC", "dev.tsv"), newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[1:33]
    with open(out, "w") as f:
        for r in rows:
            f.write(json.dumps({"text_a": r[3], "text_b": r[4]}) + "\n")


def compare(folder, inp, pred):
    import torch
    from transformers import BertForSequenceClassification, BertTokenizerFast
    model = BertForSequenceClassification.from_pretrained(folder).eval()
    tok = BertTokenizerFast.from_pretrained(folder)
    rows = [json.loads(l) for l in open(inp)]
    ours = torch.tensor([json.loads(l)["logits"] for l in open(pred)])
    enc = tok([r["text_a"] for r in rows], [r["text_b"] for r in rows], padding=True,
              truncation=True, max_length=128, return_tensors="pt")
    with torch.no_grad():
        theirs = model(**enc).logits
    diff = (theirs - ours).abs().max().item()
    print(f"{len(rows)} pairs: max |transformers - runner| logit = {diff:.3g}; "
          f"architectures {model.config.architectures}, id2label {model.config.id2label}")
    return diff <= 1e-4


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    ok = {"make": make, "pairs": pairs, "compare": compare}[cmd](*args)
    sys.exit(0 if ok is None or ok else 1)
