#!/usr/bin/env python3
"""Checks that Transformers loads a runner export of a regression or multi-label model and
predicts what `runner predict` printed for it.

Inputs: the exported folder (`runner export RUN --to DIR`), the JSONL given to `runner predict`
and the lines it printed. The folder is loaded with AutoModelForSequenceClassification and
AutoTokenizer; each input line is tokenized as the runner tokenizes (max_length 128,
truncation longest_first) and run one at a time in fp32, eval mode. Written per line: the
runner's logits, Transformers' logits, their largest absolute difference, and for multi-label
the labels above 0.5 on both sides. The summary says whether config.problem_type, num_labels,
id2label and every prediction agree (logits within 1e-4: two fp32 implementations of the same
ops, a few hundred roundings of 6e-8 on values of order 1).

Run once per problem type on the exports that tests/train/test_problem_types_e2e.cpp leaves in
build/test-tmp/e2e_regression/export and build/test-tmp/e2e_multi_label/export, with three input
lines (in.jsonl: "good food cheap price"; "rude staff slow" / "kind warm"; "cold soup and a high
price") and `runner predict --model EXPORT --input in.jsonl > out.jsonl`; the outputs are
committed as tests/train/golden/problem_type_export_check_{regression,multi_label}.json:
  /work/venv-torch/bin/python scripts/golden/problem_type_export_check.py \
      --export build/test-tmp/e2e_regression/export --input in.jsonl --predicted out.jsonl \
      --out tests/train/golden/problem_type_export_check_regression.json

Run that test with RUNNER_KEEP_TEST_TMP=1: a test executable whose tests all pass removes the
directories its tests made under build/test-tmp.
"""
import argparse
import json


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--export", required=True)
    p.add_argument("--input", required=True)
    p.add_argument("--predicted", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    import torch
    import transformers
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    torch.set_num_threads(1)
    model = AutoModelForSequenceClassification.from_pretrained(a.export, attn_implementation="eager")
    model.eval()
    tok = AutoTokenizer.from_pretrained(a.export)
    inputs = [json.loads(l) for l in open(a.input, encoding="utf-8") if l.strip()]
    predicted = [json.loads(l) for l in open(a.predicted, encoding="utf-8") if l.strip()]
    lines, agree = [], True
    for given, ours in zip(inputs, predicted):
        enc = tok(given["text_a"], given.get("text_b"), max_length=128, truncation="longest_first",
                  return_tensors="pt")
        with torch.no_grad():
            logits = model(**enc).logits[0].tolist()
        diff = max(abs(x - y) for x, y in zip(logits, ours["logits"]))
        line = {"text_a": given["text_a"], "runner_logits": ours["logits"], "transformers_logits": logits,
                "max_abs_difference": diff}
        ok = diff <= 1e-4
        if model.config.problem_type == "multi_label_classification":
            theirs = [k for k, x in enumerate(logits) if x > 0]
            line["transformers_labels"] = theirs
            line["runner_labels"] = ours.get("labels")
            ok = ok and theirs == ours.get("labels")
        line["agree"] = ok
        agree = agree and ok
        lines.append(line)
    out = {"generator": "scripts/golden/problem_type_export_check.py", "torch": torch.__version__,
           "transformers": transformers.__version__, "problem_type": model.config.problem_type,
           "num_labels": model.config.num_labels, "id2label": model.config.id2label,
           "all_agree": agree and len(lines) == len(inputs), "lines": lines}
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    raise SystemExit(0 if out["all_agree"] else 1)


if __name__ == "__main__":
    main()
