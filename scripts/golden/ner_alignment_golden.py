#!/usr/bin/env python3
"""Goldens of the runner's NER label alignment (src/data/token_label_alignment.cpp).

Transformers' examples/pytorch/token-classification/run_ner.py tokenizes pre-split words with
`tokenizer(words, is_split_into_words=True, truncation=True, max_length=N)` and gives each
sub-token a label in tokenize_and_align_labels. This script does the same with transformers'
PreTrainedTokenizerFast (tokenizers underneath) and a re-implementation of that function, and
writes what it gets; tests/data/test_token_label_alignment.cpp holds the runner to it exactly.

Run it in a virtual environment outside the project (torch is not needed; transformers 5.24 and
tokenizers 0.23.3 made the committed files), from the project root:

    python3 -m venv /tmp/venv-ner && /tmp/venv-ner/bin/pip install transformers tokenizers
    /tmp/venv-ner/bin/python scripts/golden/ner_alignment_golden.py \
        --shared ../shared --out tests/data/golden

The sentences: the first 120 of SST-2 dev.tsv (column 0) and the first 80 first sentences of
MRPC dev.tsv (column 3), split on whitespace into words, then EDGE_SENTENCES below (accents,
CJK, emoji, a word that is an added token, words that normalize to nothing). Their tags are
random BIO tags drawn from random.Random(20240607): each word starts an entity with
probability 0.3, of a type drawn from TYPES and 1 to 3 words long (B-X then I-X). The tags mean
nothing; they only have to exercise the alignment.

It writes to --out:
  ner_sentences.conll      the sentences in CoNLL format (a -DOCSTART- line and a blank line
                           first; "word tag" a line; a blank line after each sentence)
  ner_alignment.NAME.jsonl per tokenizer NAME, a first line {"labels": [...], "max_lengths":
                           [...], "truncated": {"128": n, ...}} (sentences longer than
                           max_length), then one line per sentence and max_length:
                           {"sentence": i, "max_length": N, "input_ids", "token_type_ids",
                           "labels_first" (label_all_tokens=False), "labels_all"
                           (label_all_tokens=True, with run_ner's b_to_i_label)}

The tokenizers (NAME: file):
  wordpiece        ../shared/models/bert-base-uncased/tokenizer.json
  roberta_bpe      tests/tokenizer/golden/roberta_bpe.tokenizer.json, byte-level BPE, loaded with
                   the ByteLevel pre-tokenizer's add_prefix_space set to true, as
                   RobertaTokenizer(add_prefix_space=True) sets it (PreTrainedTokenizerFast's own
                   add_prefix_space argument leaves the pre-tokenizer as it is)
  deberta_unigram  tests/tokenizer/golden/deberta_unigram.tokenizer.json, Unigram + Metaspace
  xlmr_spm         tests/tokenizer/golden/xlmr_spm.tokenizer.json, SentencePiece Unigram with a
                   Precompiled normalizer, WhitespaceSplit + Metaspace
"""
import argparse
import json
import os
import random
import tempfile

from transformers import PreTrainedTokenizerFast

TYPES = ["PER", "LOC", "ORG", "MISC"]
LABELS = ["O"] + [f"{p}-{t}" for t in TYPES for p in ("B", "I")]
MAX_LENGTHS = [128, 16]
SEED = 20240607
EDGE_SENTENCES = [
    "Zoë met Ångström in Škoda 's café .",
    "東京 and 北京 are cities",
    "I love it 😀 👍🏽 !",
    "The <mask> token sits here",
    "a \u200b zero-width word",
    "U.S. officials said 1,000,000 people",
    "state-of-the-art e-mail co-operation",
    "x",
]
TOKENIZERS = {
    "wordpiece": ("shared", "models/bert-base-uncased/tokenizer.json", False),
    "roberta_bpe": ("source", "tests/tokenizer/golden/roberta_bpe.tokenizer.json", True),
    "deberta_unigram": ("source", "tests/tokenizer/golden/deberta_unigram.tokenizer.json", False),
    "xlmr_spm": ("source", "tests/tokenizer/golden/xlmr_spm.tokenizer.json", False),
}


def tsv_column(path, column, count):
    with open(path, encoding="utf-8-sig") as f:
        lines = f.read().split("\n")[1:]
    return [line.rstrip("\r").split("\t")[column] for line in lines if line][:count]


def sentences(shared):
    glue = os.path.join(shared, "data/glue")
    texts = tsv_column(os.path.join(glue, "SST-2/dev.tsv"), 0, 120)
    texts += tsv_column(os.path.join(glue, "MRPC/dev.tsv"), 3, 80)
    return [t.split() for t in texts + EDGE_SENTENCES]


def random_tags(words, rng):
    tags, i = [], 0
    while i < len(words):
        if rng.random() < 0.3:
            kind, length = rng.choice(TYPES), rng.randint(1, 3)
            for k in range(min(length, len(words) - i)):
                tags.append(("B-" if k == 0 else "I-") + kind)
            i += min(length, len(words) - i)
        else:
            tags.append("O")
            i += 1
    return tags


def load(path, prefix_space):
    with open(path, encoding="utf-8") as f:
        spec = json.load(f)
    if prefix_space:
        spec["pre_tokenizer"]["add_prefix_space"] = True
        spec["post_processor"]["add_prefix_space"] = True
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        json.dump(spec, f)
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=f.name, add_prefix_space=prefix_space)
    os.unlink(f.name)
    return tokenizer


def b_to_i_label(label_list):
    # run_ner.py's mapping: a B- label's later sub-tokens get its I- label.
    out = []
    for idx, label in enumerate(label_list):
        if label.startswith("B-") and label.replace("B-", "I-") in label_list:
            out.append(label_list.index(label.replace("B-", "I-")))
        else:
            out.append(idx)
    return out


def align(word_ids, tags, label_all_tokens):
    # run_ner.py's tokenize_and_align_labels for one sentence.
    label_to_id = {l: i for i, l in enumerate(LABELS)}
    b_to_i = b_to_i_label(LABELS)
    label_ids, previous = [], None
    for word_idx in word_ids:
        if word_idx is None:
            label_ids.append(-100)
        elif word_idx != previous:
            label_ids.append(label_to_id[tags[word_idx]])
        elif label_all_tokens:
            label_ids.append(b_to_i[label_to_id[tags[word_idx]]])
        else:
            label_ids.append(-100)
        previous = word_idx
    return label_ids


def write_conll(path, data):
    with open(path, "w", encoding="utf-8") as f:
        f.write("-DOCSTART- O\n\n")
        for words, tags in data:
            f.write("".join(f"{w} {t}\n" for w, t in zip(words, tags)) + "\n")


def golden_lines(tokenizer, data):
    header = {"labels": LABELS, "max_lengths": MAX_LENGTHS, "truncated": {}}
    lines = []
    for max_length in MAX_LENGTHS:
        truncated = 0
        for i, (words, tags) in enumerate(data):
            full = tokenizer(words, is_split_into_words=True)
            truncated += len(full["input_ids"]) > max_length
            enc = tokenizer(words, is_split_into_words=True, truncation=True, max_length=max_length,
                            return_token_type_ids=True)
            lines.append({"sentence": i, "max_length": max_length, "input_ids": enc["input_ids"],
                          "token_type_ids": enc["token_type_ids"],
                          "labels_first": align(enc.word_ids(), tags, False),
                          "labels_all": align(enc.word_ids(), tags, True)})
        header["truncated"][str(max_length)] = truncated
    return [header] + lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--out", default="tests/data/golden")
    args = ap.parse_args()
    rng = random.Random(SEED)
    data = [(words, random_tags(words, rng)) for words in sentences(args.shared)]
    os.makedirs(args.out, exist_ok=True)
    write_conll(os.path.join(args.out, "ner_sentences.conll"), data)
    for name, (root, rel, prefix_space) in TOKENIZERS.items():
        tokenizer = load(os.path.join(args.shared if root == "shared" else ".", rel), prefix_space)
        with open(os.path.join(args.out, f"ner_alignment.{name}.jsonl"), "w", encoding="utf-8") as f:
            for line in golden_lines(tokenizer, data):
                f.write(json.dumps(line, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
