#!/usr/bin/env python3
"""Goldens of the runner's character offsets (src/tokenizer/token_offsets.cpp).

For each text, `tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)` of
transformers' PreTrainedTokenizerFast (tokenizers underneath) gives the ids and, for each id,
the [start, end) character offsets in the text (Python str indices, code points). This script
writes them; tests/tokenizer/test_token_offsets.cpp holds the runner's ids and offsets to them
exactly.

Run it in a virtual environment outside the project (transformers 5.24 and tokenizers 0.23.3
made the committed files), from the project root:

    python3 -m venv /work/venv-golden && /work/venv-golden/bin/pip install transformers tokenizers
    /work/venv-golden/bin/python scripts/golden/token_offsets_golden.py --shared ../shared \
        --out tests/tokenizer/golden

The texts: the first 100 sentences of SST-2 dev.tsv (column 0), the first 60 first sentences
of MRPC dev.tsv (column 3), and EDGE_TEXTS below (accents, CJK, emoji, an added token, runs of
spaces, characters that normalize to nothing or to several).

It writes to --out, per tokenizer NAME, token_offsets.NAME.jsonl: one line per text,
{"text", "input_ids", "offsets"}.

The tokenizers (NAME: file):
  wordpiece        ../shared/models/bert-base-uncased/tokenizer.json (BertNormalizer,
                   BertPreTokenizer, WordPiece)
  roberta_bpe      tests/tokenizer/golden/roberta_bpe.tokenizer.json, byte-level BPE as it is
                   (add_prefix_space false, trim_offsets true)
  deberta_unigram  tests/tokenizer/golden/deberta_unigram.tokenizer.json, Unigram + Metaspace
  xlmr_spm         tests/tokenizer/golden/xlmr_spm.tokenizer.json, Unigram with a Precompiled
                   normalizer, WhitespaceSplit + Metaspace
"""
import argparse
import json
import os

from transformers import PreTrainedTokenizerFast

EDGE_TEXTS = [
    "Zoë met Ångström in Škoda's café.",
    "東京 and 北京 are cities",
    "I love it 😀 👍🏽 !",
    "The <mask> token sits here",
    "a \u200b zero-width word",
    "U.S. officials said 1,000,000 people",
    "  two  spaces   and a tab\there ",
    "İstanbul ﬁne ½ Ⅻ",
    "x",
    "",
]
TOKENIZERS = {
    "wordpiece": ("shared", "models/bert-base-uncased/tokenizer.json"),
    "roberta_bpe": ("source", "tests/tokenizer/golden/roberta_bpe.tokenizer.json"),
    "deberta_unigram": ("source", "tests/tokenizer/golden/deberta_unigram.tokenizer.json"),
    "xlmr_spm": ("source", "tests/tokenizer/golden/xlmr_spm.tokenizer.json"),
}


def tsv_column(path, column, count):
    with open(path, encoding="utf-8-sig") as f:
        lines = f.read().split("\n")[1:]
    return [line.rstrip("\r").split("\t")[column] for line in lines if line][:count]


def texts(shared):
    glue = os.path.join(shared, "data/glue")
    return (tsv_column(os.path.join(glue, "SST-2/dev.tsv"), 0, 100)
            + tsv_column(os.path.join(glue, "MRPC/dev.tsv"), 3, 60) + EDGE_TEXTS)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--out", default="tests/tokenizer/golden")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, (root, rel) in TOKENIZERS.items():
        tokenizer = PreTrainedTokenizerFast(tokenizer_file=os.path.join(args.shared if root == "shared" else ".", rel))
        with open(os.path.join(args.out, f"token_offsets.{name}.jsonl"), "w", encoding="utf-8") as f:
            for text in texts(args.shared):
                enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
                line = {"text": text, "input_ids": enc["input_ids"],
                        "offsets": [list(o) for o in enc["offset_mapping"]]}
                f.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
