#!/usr/bin/env python3
"""Checks `runner predict`'s tags and entities for a token classification model against
Transformers and seqeval.

For a model folder MODEL (a run's final/ or an export) and a JSONL file of {"tokens": [...]} lines,
run the runner, then this script (a venv outside the project with transformers and seqeval):

  build/runner predict --model MODEL --input sentences.jsonl --max-length N > predicted.jsonl
  /work/venv-lora/bin/python scripts/golden/token_predict_check.py --model MODEL \
      --input sentences.jsonl --predicted predicted.jsonl --max-length N

For each sentence it encodes the words as run_ner.py does (`tokenizer(words,
is_split_into_words=True, truncation=True, max_length=N)`), takes AutoModelForTokenClassification's
argmax label at each word's first sub-token (`word_ids()`), a word without one reading None, and
seqeval's get_entities of those tags (None read as "O"). It prints how many words and entities
agree and exits 1 on any difference.
"""
import argparse
import json
import sys


def main():
    import torch
    from seqeval.metrics.sequence_labeling import get_entities
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--input", required=True)
    parser.add_argument("--predicted", required=True)
    parser.add_argument("--max-length", type=int, default=128)
    args = parser.parse_args()
    torch.set_num_threads(1)
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForTokenClassification.from_pretrained(args.model, attn_implementation="eager").eval()
    sentences = [json.loads(line)["tokens"] for line in open(args.input) if line.strip()]
    predicted = [json.loads(line) for line in open(args.predicted) if line.strip()]
    if len(sentences) != len(predicted):
        sys.exit(f"{len(sentences)} sentences but {len(predicted)} predicted lines")
    words = entities = bad = 0
    for number, (tokens, line) in enumerate(zip(sentences, predicted), 1):
        enc = tokenizer(tokens, is_split_into_words=True, truncation=True, max_length=args.max_length,
                        return_tensors="pt")
        with torch.no_grad():
            best = model(**enc).logits[0].argmax(-1).tolist()
        tags = [None] * len(tokens)
        previous = None
        for position, word in enumerate(enc.word_ids()):
            if word is not None and word != previous:
                tags[word] = model.config.id2label[best[position]]
            previous = word
        expected = [(t, s, e) for t, s, e in get_entities([t or "O" for t in tags])]
        got = [(e["type"], e["words"][0], e["words"][1]) for e in line["entities"]]
        words += len(tokens)
        entities += len(expected)
        if tags != line["tags"] or expected != got:
            bad += 1
            print(f"line {number}: tags {line['tags']} != {tags} or entities {got} != {expected}")
    print(f"{len(sentences)} sentences, {words} words, {entities} entities; {bad} lines differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
