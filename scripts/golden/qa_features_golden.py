#!/usr/bin/env python3
"""Goldens of the runner's QA windows (src/data/qa_features.cpp).

Transformers' examples/pytorch/question-answering/run_qa.py turns SQuAD examples into model
inputs in prepare_train_features and prepare_validation_features. This script makes the same
calls (questions lstripped; tokenizer(question, context, truncation="only_second",
max_length=N, stride=S, return_overflowing_tokens=True, return_offsets_mapping=True,
padding="max_length"), the context on the left when the tokenizer pads on the left) and the
same position search, written anew from the script's behaviour, and writes what it gets;
tests/data/test_qa_features.cpp holds the runner to it exactly.

Run it in a virtual environment outside the project (transformers 5.24 and tokenizers 0.23.3
made the committed files), from the project root:

    python3 -m venv /work/venv-golden && /work/venv-golden/bin/pip install transformers tokenizers
    /work/venv-golden/bin/python scripts/golden/qa_features_golden.py --shared ../shared --out tests/data/golden

The SQuAD-format file (qa_squad.json, SQuAD v2.0 layout): 60 examples drawn with
random.Random(SEED). Each context joins 2 to 6 MRPC dev first sentences (column 3); each
question is an SST-2 dev sentence cut to 3 to 8 words, with leading spaces one time in five;
the answer is a span of 1 to 4 words of the context with its character start, except for one
example in four, which has none.

It writes to --out:
  qa_squad.json               the examples
  qa_features.NAME.jsonl      per tokenizer NAME, one line per (max_length, doc_stride) and
                              window: {"max_length", "doc_stride", "example": index,
                              "input_ids", "token_type_ids" (when the tokenizer gives them),
                              "attention_mask", "sequence_ids", "offsets" (null outside the
                              context, as the validation features have them), "start_position",
                              "end_position"}

The tokenizers (NAME: file): wordpiece (../shared/models/bert-base-uncased/tokenizer.json),
roberta_bpe and xlmr_spm (tests/tokenizer/golden/NAME.tokenizer.json), loaded with
PreTrainedTokenizerFast; cls_token and pad_token set as the files' models use them.
"""
import argparse
import json
import os
import random

from transformers import PreTrainedTokenizerFast

SEED = 20261207
SETTINGS = [(384, 128), (64, 16), (48, 8)]
TOKENIZERS = {
    "wordpiece": ("shared", "models/bert-base-uncased/tokenizer.json", "[CLS]", "[PAD]"),
    "roberta_bpe": ("source", "tests/tokenizer/golden/roberta_bpe.tokenizer.json", "<s>", "<pad>"),
    "xlmr_spm": ("source", "tests/tokenizer/golden/xlmr_spm.tokenizer.json", "<s>", "<pad>"),
}


def tsv_column(path, column):
    with open(path, encoding="utf-8-sig") as f:
        lines = f.read().split("\n")[1:]
    return [line.rstrip("\r").split("\t")[column] for line in lines if line]


def squad_examples(shared, rng, count=60):
    glue = os.path.join(shared, "data/glue")
    sentences = tsv_column(os.path.join(glue, "MRPC/dev.tsv"), 3)
    questions = tsv_column(os.path.join(glue, "SST-2/dev.tsv"), 0)
    examples = []
    for i in range(count):
        context = " ".join(rng.choice(sentences) for _ in range(rng.randint(2, 6)))
        qwords = rng.choice(questions).split()
        question = " ".join(qwords[: rng.randint(3, 8)]) + "?"
        if rng.random() < 0.2:
            question = "   " + question
        answers = {"text": [], "answer_start": []}
        if rng.random() >= 0.25:
            starts = [0] + [k + 1 for k, c in enumerate(context) if c == " "]
            w = rng.randrange(len(starts))
            start = starts[w]
            n = rng.randint(1, 4)
            end_word = min(len(starts), w + n)
            end = starts[end_word] - 1 if end_word < len(starts) else len(context)
            answers = {"text": [context[start:end]], "answer_start": [start]}
        examples.append({"id": f"qa{i:03d}", "question": question, "context": context, "answers": answers})
    return examples


def write_squad(path, examples):
    paragraphs = [{"context": e["context"], "qas": [
        {"id": e["id"], "question": e["question"], "is_impossible": not e["answers"]["text"],
         "answers": [{"text": t, "answer_start": s} for t, s in zip(e["answers"]["text"], e["answers"]["answer_start"])]}]}
        for e in examples]
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"version": "v2.0", "data": [{"title": "glue", "paragraphs": paragraphs}]}, f, ensure_ascii=False, indent=1)
        f.write("\n")


def load(root, rel, cls, pad, shared):
    path = os.path.join(shared if root == "shared" else ".", rel)
    return PreTrainedTokenizerFast(tokenizer_file=path, cls_token=cls, pad_token=pad)


def windows(tokenizer, examples, max_length, stride):
    # prepare_train_features and prepare_validation_features in one pass: the same tokenizer call.
    pad_on_right = tokenizer.padding_side == "right"
    questions = [e["question"].lstrip() for e in examples]
    contexts = [e["context"] for e in examples]
    enc = tokenizer(questions if pad_on_right else contexts, contexts if pad_on_right else questions,
                    truncation="only_second" if pad_on_right else "only_first", max_length=max_length,
                    stride=stride, return_overflowing_tokens=True, return_offsets_mapping=True,
                    padding="max_length")
    context_index = 1 if pad_on_right else 0
    out = []
    for i, offsets in enumerate(enc["offset_mapping"]):
        input_ids = enc["input_ids"][i]
        cls_index = input_ids.index(tokenizer.cls_token_id) if tokenizer.cls_token_id in input_ids else 0
        sequence_ids = enc.sequence_ids(i)
        sample = enc["overflow_to_sample_mapping"][i]
        answers = examples[sample]["answers"]
        start_pos = end_pos = cls_index
        if answers["answer_start"]:
            start_char = answers["answer_start"][0]
            end_char = start_char + len(answers["text"][0])
            first = 0
            while sequence_ids[first] != context_index:
                first += 1
            last = len(input_ids) - 1
            while sequence_ids[last] != context_index:
                last -= 1
            if offsets[first][0] <= start_char and offsets[last][1] >= end_char:
                while first < len(offsets) and offsets[first][0] <= start_char:
                    first += 1
                start_pos = first - 1
                while offsets[last][1] >= end_char:
                    last -= 1
                end_pos = last + 1
        line = {"example": sample, "input_ids": input_ids, "attention_mask": enc["attention_mask"][i],
                "sequence_ids": sequence_ids,
                "offsets": [list(o) if sequence_ids[k] == context_index else None for k, o in enumerate(offsets)],
                "start_position": start_pos, "end_position": end_pos}
        if "token_type_ids" in enc:
            line["token_type_ids"] = enc["token_type_ids"][i]
        out.append(line)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--out", default="tests/data/golden")
    args = ap.parse_args()
    examples = squad_examples(args.shared, random.Random(SEED))
    os.makedirs(args.out, exist_ok=True)
    write_squad(os.path.join(args.out, "qa_squad.json"), examples)
    for name, (root, rel, cls, pad) in TOKENIZERS.items():
        tokenizer = load(root, rel, cls, pad, args.shared)
        with open(os.path.join(args.out, f"qa_features.{name}.jsonl"), "w", encoding="utf-8") as f:
            for max_length, stride in SETTINGS:
                for line in windows(tokenizer, examples, max_length, stride):
                    f.write(json.dumps({"max_length": max_length, "doc_stride": stride, **line}, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
