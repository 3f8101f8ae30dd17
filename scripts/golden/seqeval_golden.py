#!/usr/bin/env python3
"""Golden values of the runner's entity-level NER metrics, computed by seqeval.

The runner's entity metrics (src/train/metrics_entities*.cpp) are written in C++ without
seqeval; tests/train/test_metrics_entities.cpp holds them to the values this script writes to
tests/train/golden/seqeval.json. Run it in a virtual environment outside the project:

    python3 -m venv /tmp/venv-seqeval && /tmp/venv-seqeval/bin/pip install seqeval
    /tmp/venv-seqeval/bin/python scripts/golden/seqeval_golden.py --out tests/train/golden/seqeval.json

Each case is a pair of tag sentences (true, predicted), written here or drawn from a fixed seed,
so the file is the same on every machine, and what seqeval 1.2.2 gives on it:

  * "lenient": seqeval's default mode, f1_score(y_true, y_pred) with no `mode`: the micro
    precision_score / recall_score / f1_score, classification_report(output_dict=True)'s
    per-type rows (precision, recall, f1-score, support), and the entities that
    seqeval.metrics.sequence_labeling.get_entities finds in each side ([type, first, last],
    offsets into the sentences laid end to end with one "O" after each).
  * "strict" (one per scheme the case lists): the same numbers with mode="strict" and
    scheme=seqeval.scheme.<SCHEME>, and the entities of seqeval.scheme.Entities
    ([sentence, type, start, end) with `end` exclusive, within the sentence). Where seqeval
    refuses the input (a prefix the scheme lacks) the entry holds "error" instead.
  * "accuracy": accuracy_score (tokens equal over all tokens); null where seqeval divides by
    zero (no token at all), where the runner defines it as 0.
  * "suffix": true for cases written as "PER-B" (seqeval's suffix=True), in every call.

zero_division is left at its default "warn", which counts 0; the warnings are silenced.
The "detect" list holds label lists and what seqeval.scheme.auto_detect says of each (a scheme
name, or null and the error where it refuses).

Random cases (--seed, default 20261201) draw, per scheme, sentences of 0..8 tags from that
scheme's prefixes and three types; the prediction is the truth with about a third of its tags
redrawn, so both sides hold ill-formed sequences as well as matching entities.
"""
import argparse
from importlib import metadata
import json
import platform
import random
import re
import warnings

from seqeval import scheme as sch
from seqeval.metrics import accuracy_score, classification_report, f1_score, precision_score, recall_score
from seqeval.metrics.sequence_labeling import get_entities

SCHEMES = ["IOB1", "IOB2", "IOE1", "IOE2", "IOBES", "BILOU"]
ALL = SCHEMES

HAND_MADE = {
    # seqeval's own documentation example: a MISC entity predicted one token early.
    "readme_example": {
        "true": [["O", "O", "O", "B-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]],
        "pred": [["O", "O", "B-MISC", "I-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]],
        "strict": ["IOB2", "IOB1"],
    },
    # Nothing predicted: precision divides by zero.
    "no_predicted_entities": {
        "true": [["B-PER", "I-PER", "O"], ["O", "B-LOC"]],
        "pred": [["O", "O", "O"], ["O", "O"]],
        "strict": ["IOB2"],
    },
    # Nothing true, something predicted: recall divides by zero.
    "no_true_entities": {
        "true": [["O", "O", "O"]],
        "pred": [["B-ORG", "O", "B-ORG"]],
        "strict": ["IOB2"],
    },
    "all_outside": {
        "true": [["O", "O"], ["O"]],
        "pred": [["O", "O"], ["O"]],
        "strict": ALL,
    },
    # No token at all: accuracy_score divides by zero.
    "empty_sentences": {
        "true": [[], []],
        "pred": [[], []],
        "strict": ["IOB2"],
    },
    "one_empty_sentence_between": {
        "true": [["B-PER"], [], ["I-PER", "O"]],
        "pred": [["B-PER"], [], ["B-PER", "O"]],
        "strict": ["IOB2", "IOB1"],
    },
    # Entities of one type side by side, told apart by B- (IOB2) or by a B- after I- (IOB1).
    "adjacent_same_type_iob2": {
        "true": [["B-PER", "B-PER", "I-PER", "B-PER", "O"]],
        "pred": [["B-PER", "I-PER", "I-PER", "B-PER", "O"]],
        "strict": ["IOB2"],
    },
    "adjacent_same_type_iob1": {
        "true": [["I-PER", "B-PER", "I-PER", "O", "I-LOC", "I-LOC", "B-LOC"]],
        "pred": [["I-PER", "I-PER", "I-PER", "O", "I-LOC", "B-LOC", "B-LOC"]],
        "strict": ["IOB1"],
    },
    "adjacent_same_type_ioe": {
        "true": [["I-PER", "E-PER", "E-PER", "I-LOC", "E-LOC", "O"]],
        "pred": [["I-PER", "I-PER", "E-PER", "I-LOC", "I-LOC", "O"]],
        "strict": ["IOE2", "IOE1"],
    },
    "single_token_entities": {
        "true": [["S-PER", "S-PER", "O", "B-LOC", "E-LOC", "S-ORG"]],
        "pred": [["S-PER", "B-PER", "O", "S-LOC", "E-LOC", "S-ORG"]],
        "strict": ["IOBES"],
    },
    "single_token_entities_bilou": {
        "true": [["U-PER", "U-PER", "O", "B-LOC", "L-LOC", "U-ORG"]],
        "pred": [["U-PER", "B-PER", "O", "U-LOC", "L-LOC", "U-ORG"]],
        "strict": ["BILOU"],
    },
    "single_token_entities_iob2": {
        "true": [["B-PER"], ["B-LOC", "B-LOC"], ["O", "B-ORG"]],
        "pred": [["B-PER"], ["B-LOC", "I-LOC"], ["B-ORG", "O"]],
        "strict": ["IOB2"],
    },
    # An entity at the end of one sentence and one at the start of the next, of one type: the
    # "O" between the sentences keeps them apart.
    "entities_at_sentence_boundaries": {
        "true": [["O", "B-PER"], ["I-PER", "O"], ["B-LOC", "I-LOC"]],
        "pred": [["O", "B-PER"], ["B-PER", "O"], ["B-LOC", "I-LOC"]],
        "strict": ["IOB2", "IOB1"],
    },
    # Untyped tags ("U", "L") never end an entity in lenient mode, and the "O" between sentences
    # has their type "_": a lenient entity runs on into the next sentence until a change of type.
    "untyped_across_sentences": {
        "true": [["U"], ["L", "B-PER"]],
        "pred": [["U"], ["O", "B-PER"]],
        "strict": ["BILOU"],
    },
    "i_without_b": {
        "true": [["I-PER", "I-PER", "O", "I-LOC"], ["O", "I-ORG", "B-ORG"]],
        "pred": [["B-PER", "I-PER", "O", "I-LOC"], ["O", "B-ORG", "I-ORG"]],
        "strict": ["IOB2", "IOB1"],
    },
    "type_change_inside": {
        "true": [["B-PER", "I-LOC", "I-LOC", "O"]],
        "pred": [["B-PER", "I-PER", "I-LOC", "O"]],
        "strict": ["IOB2", "IOB1"],
    },
    "end_without_inside": {
        "true": [["E-PER", "O", "I-LOC", "E-LOC", "E-LOC"]],
        "pred": [["E-PER", "O", "E-LOC", "I-LOC", "E-LOC"]],
        "strict": ["IOE2", "IOE1", "IOBES"],
    },
    # BILOU read leniently: L- and U- have no rules there, so two U- of one type merge.
    "bilou_lenient_and_strict": {
        "true": [["B-PER", "L-PER", "U-LOC", "U-LOC", "O", "B-ORG", "I-ORG", "L-ORG"]],
        "pred": [["B-PER", "I-PER", "U-LOC", "O", "O", "B-ORG", "I-ORG", "I-ORG"]],
        "strict": ["BILOU"],
    },
    "iobes_ill_formed": {
        "true": [["B-PER", "I-PER", "E-PER", "S-LOC", "B-ORG", "E-ORG"]],
        "pred": [["B-PER", "I-PER", "O", "S-LOC", "B-ORG", "I-ORG"], ],
        "strict": ["IOBES"],
    },
    # Strict mode refuses a prefix its scheme lacks; lenient mode reads it.
    "strict_refuses_foreign_prefix": {
        "true": [["B-PER", "E-PER", "O"]],
        "pred": [["B-PER", "I-PER", "O"]],
        "strict": ["IOB2", "IOE2", "IOBES", "BILOU"],
    },
    "suffix_tags": {
        "true": [["PER-B", "PER-I", "O", "LOC-B"], ["ORG-I", "O"]],
        "pred": [["PER-B", "PER-I", "O", "LOC-I"], ["ORG-B", "O"]],
        "suffix": True,
        "strict": ["IOB2", "IOB1"],
    },
    "suffix_tags_iobes": {
        "true": [["PER-S", "LOC-B", "LOC-E", "X-Y-S"]],
        "pred": [["PER-S", "LOC-B", "LOC-I", "X-Y-S"]],
        "suffix": True,
        "strict": ["IOBES"],
    },
    # Types with dashes: lenient cuts at the first '-', strict strips '-' at both ends.
    "dashes_in_types": {
        "true": [["B-PER-X", "I-PER-X", "O", "B--LOC", "BORG", "I-"]],
        "pred": [["B-PER-X", "I-PER", "O", "B--LOC", "BORG", "I-"]],
        "strict": ["IOB2"],
    },
    # Tags without a scheme prefix: lenient mode reads any first character as the prefix.
    "bare_and_dot_tags": {
        "true": [["PER", "PER", ".", "B-LOC", ".", "I-LOC", "-", "O"]],
        "pred": [["PER", "O", ".", "B-LOC", "I-LOC", "I-LOC", "-", "O"]],
        "strict": ["IOB2"],
    },
    # Types sort by code point; a non-ASCII prefix is one character of several bytes.
    # ("ÉPER" is prefix "É" and type "PER", as "É-PER" is.)
    "non_ascii": {
        "true": [["B-ÉTÉ", "I-ÉTÉ", "B-Z", "É-PER", "O", "ÉLOC", "ÉLOC", "B-LOC"]],
        "pred": [["B-ÉTÉ", "I-ÉTÉ", "B-Z", "O", "O", "ÉLOC", "O", "B-LOC"]],
        "strict": ["IOB2"],
    },
    "non_ascii_suffix": {
        "true": [["PERÉ", "PER-I", "O", "LOC-B", "LOCÉ", "LOC-É"]],
        "pred": [["PERÉ", "PER-B", "O", "LOC-B", "LOCÉ", "O"]],
        "suffix": True,
        "strict": ["IOB2"],
    },
}


def scores(kw, y_true, y_pred):
    report = classification_report(y_true, y_pred, output_dict=True, **kw)
    per_type = {name: {"precision": float(row["precision"]), "recall": float(row["recall"]),
                       "f1": float(row["f1-score"]), "support": int(row["support"])}
                for name, row in report.items() if not name.endswith(" avg")}
    return {
        "precision": float(precision_score(y_true, y_pred, **kw)),
        "recall": float(recall_score(y_true, y_pred, **kw)),
        "f1": float(f1_score(y_true, y_pred, **kw)),
        "per_type": per_type,
    }


def lenient(y_true, y_pred, suffix):
    out = scores({"suffix": suffix}, y_true, y_pred)
    out["entities_true"] = [list(e) for e in get_entities(y_true, suffix)]
    out["entities_pred"] = [list(e) for e in get_entities(y_pred, suffix)]
    return out


def strict_entities(y, scheme, suffix):
    return [[e.sent_id, e.tag, e.start, e.end] for sent in sch.Entities(y, scheme, suffix).entities for e in sent]


def strict(y_true, y_pred, name, suffix):
    scheme = getattr(sch, name)
    try:
        out = scores({"mode": "strict", "scheme": scheme, "suffix": suffix}, y_true, y_pred)
        out["entities_true"] = strict_entities(y_true, scheme, suffix)
        out["entities_pred"] = strict_entities(y_pred, scheme, suffix)
        return out
    except (ValueError, KeyError) as e:
        return {"error": f"{type(e).__name__}: {e}"}


def accuracy(y_true, y_pred):
    try:
        return float(accuracy_score(y_true, y_pred))
    except ZeroDivisionError:
        return None


def evaluate(case):
    y_true, y_pred, suffix = case["true"], case["pred"], case.get("suffix", False)
    return {
        "true": y_true,
        "pred": y_pred,
        "suffix": suffix,
        "lenient": lenient(y_true, y_pred, suffix),
        "strict": {name: strict(y_true, y_pred, name, suffix) for name in case["strict"]},
        "accuracy": accuracy(y_true, y_pred),
    }


PREFIXES = {"IOB1": "IOB", "IOB2": "IOB", "IOE1": "IOE", "IOE2": "IOE", "IOBES": "IOBES", "BILOU": "BILOU"}
TYPES = ["PER", "LOC", "ORG"]


def random_tag(rng, prefixes):
    p = rng.choice(prefixes + "OO")  # O about as often as any two prefixes
    return "O" if p == "O" else f"{p}-{rng.choice(TYPES)}"


def random_case(rng, scheme):
    prefixes = PREFIXES[scheme].replace("O", "")
    true = [[random_tag(rng, prefixes) for _ in range(rng.randint(0, 8))] for _ in range(rng.randint(1, 4))]
    pred = [[random_tag(rng, prefixes) if rng.random() < 0.35 else t for t in s] for s in true]
    return {"true": true, "pred": pred, "strict": [scheme]}


DETECT = {
    "iob2": ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"],
    "iob2_no_outside": ["B-PER", "I-PER"],
    "ioe2": ["O", "I-PER", "E-PER"],
    "iobes": ["O", "B-PER", "I-PER", "E-PER", "S-PER"],
    "iobes_no_single": ["O", "B-PER", "I-PER", "E-PER"],
    "begin_end_only": ["B-PER", "E-PER"],
    "bilou": ["O", "B-PER", "I-PER", "L-PER", "U-PER"],
    "unit_only": ["U-PER"],
    "single_only": ["S-PER"],
    "outside_and_single": ["O", "S-PER"],
    "outside_and_inside": ["O", "I-PER", "I-LOC"],
    "end_and_last_mixed": ["O", "B-PER", "E-PER", "L-LOC"],
    "single_and_unit_mixed": ["O", "S-PER", "U-LOC"],
    "no_prefix": ["O", "PER"],
}
DETECT_SUFFIX = {
    "suffix_iob2": ["O", "PER-B", "PER-I"],
    "suffix_bilou": ["O", "PER-B", "PER-L", "LOC-U"],
}


def detect(labels, suffix):
    try:
        return {"labels": labels, "suffix": suffix, "seqeval": sch.auto_detect([labels], suffix).__name__}
    except ValueError as e:
        # The message prints a set of prefixes in hash order: sorted, the file is the same each run.
        said = re.sub(r"\{(.*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", str(e))
        return {"labels": labels, "suffix": suffix, "seqeval": None, "error": said}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=20261201)
    args = ap.parse_args()
    warnings.simplefilter("ignore")  # zero_division="warn" and "seems not to be NE tag"
    rng = random.Random(args.seed)
    cases = {name: evaluate(case) for name, case in HAND_MADE.items()}
    for i in range(18):
        scheme = SCHEMES[i % len(SCHEMES)]
        cases[f"random_{i:02d}_{scheme.lower()}"] = evaluate(random_case(rng, scheme))
    # Two random cases of mixed prefixes, read by lenient mode (and refused by strict IOB2).
    for i in range(2):
        case = random_case(rng, "BILOU")
        case["pred"] = [[t.replace("L-", "E-").replace("U-", "S-") for t in s] for s in case["pred"]]
        case["strict"] = ["IOB2"]
        cases[f"random_{18 + i:02d}_mixed"] = evaluate(case)
    doc = {
        "provenance": {
            "generator": "scripts/golden/seqeval_golden.py",
            "seed": args.seed,
            "python": platform.python_version(),
            "seqeval": metadata.version("seqeval"),
            "numpy": metadata.version("numpy"),
        },
        "cases": cases,
        "detect": {**{name: detect(labels, False) for name, labels in DETECT.items()},
                   **{name: detect(labels, True) for name, labels in DETECT_SUFFIX.items()}},
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
