#!/usr/bin/env python3
"""Golden for reading a DeBERTa-v2/v3 folder's spm.model directly (src/tokenizer/spm_tokenizer.h).

Writes tests/tokenizer/golden/deberta_spm.spm.model: the SentencePiece Unigram model that
scripts/golden/tokenizer_json_goldens.py trains for deberta_spm (sentencepiece's trainer on
MRPC and SST-2 train text, nmt_nfkc rule, byte_fallback, [PAD] [CLS] [SEP] [UNK] as ids 0-3,
[MASK] user-defined, vocab 2500, one thread), kept as the file the trainer wrote.

Its goldens are deberta_spm's: that tokenizer.json is this model laid out as Transformers'
DebertaV2Converter lays out deberta-v3's spm.model (normalizer Sequence[Strip, Precompiled,
Replace " {2,}" -> " "], Metaspace "always", Unigram, [CLS] A [SEP] B [SEP]), and
deberta_spm.hashes.txt / deberta_spm.edge_cases.jsonl are what `tokenizers` encodes with it.
The script checks that they belong to this file:
  1. the model's pieces, scores (as float32) and precompiled charsmap equal the
     tokenizer.json's vocabulary and Precompiled normalizer, entry for entry;
  2. sentencepiece itself (SentencePieceProcessor.encode, no specials) and that tokenizer.json
     (encode without specials) give the same ids on every MRPC and SST-2 sentence (train and
     dev, both sides of the pairs), except where two segmentations have the same total score,
     whose Viterbi tie the two libraries break differently; those are printed. Run on
     2026-11-28: 76373 sentences, 1 tie (MRPC train row 3075, "7000": sentencepiece
     "7" "00" "0", tokenizers "7" "0" "00"), no other difference.
It stops with an error if either fails. The runner is held to tokenizers' choice (0 mismatches
on the hashes), as it is for every tokenizer.json.

Transformers 5.x no longer converts spm.model this way: its DebertaV2Tokenizer(vocab_file=...)
builds Replace("\\s{2,}|[\\n\\r\\t]"), NFC, Strip(right) and byte_fallback False, so it differs
from sentencepiece on text the charsmap changes (full-width forms, ligatures) and on
characters outside the vocabulary. The runner follows sentencepiece and 4.x's converter.

Command (repository root; sentencepiece, protobuf and tokenizers in the venv, about 2 minutes):
  /work/venv-torch/bin/pip install sentencepiece protobuf
  /work/venv-torch/bin/python scripts/golden/spm_model_golden.py --glue ../shared/data/glue \\
      --out tests/tokenizer/golden
Tested with sentencepiece 0.2.3, tokenizers 0.23.3.
"""
import argparse
import base64
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tokenizer_json_goldens as g  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--glue", default="../shared/data/glue")
    p.add_argument("--out", default="tests/tokenizer/golden")
    a = p.parse_args()
    import sentencepiece as spm
    from tokenizers import Tokenizer
    files = g.glue_files(a.glue)
    path = os.path.join(a.out, "deberta_spm.spm.model")
    pieces, charsmap = g.train_spm(files, keep=path)
    with open(os.path.join(a.out, "deberta_spm.tokenizer.json"), encoding="utf-8") as f:
        tj = json.load(f)
    vocab = tj["model"]["vocab"]
    f32 = [struct.unpack("<f", struct.pack("<f", s))[0] for _, s in pieces]
    if [x for x, _ in pieces] != [v[0] for v in vocab] or f32 != [v[1] for v in vocab]:
        raise SystemExit("the trained model's pieces differ from deberta_spm.tokenizer.json's vocabulary")
    stored = [n for n in tj["normalizer"]["normalizers"] if n["type"] == "Precompiled"][0]["precompiled_charsmap"]
    if base64.b64decode(stored) != charsmap:
        raise SystemExit("the trained model's charsmap differs from deberta_spm.tokenizer.json's")
    sp = spm.SentencePieceProcessor(model_file=path)
    tok = Tokenizer.from_file(os.path.join(a.out, "deberta_spm.tokenizer.json"))
    sentences, ties, others = 0, [], []
    for _, rows in files:
        for row in rows:
            for text in row:
                sentences += 1
                x, y = sp.encode(text), tok.encode(text, add_special_tokens=False).ids
                if x != y:
                    tie = abs(sum(f32[i] for i in x) - sum(f32[i] for i in y)) < 1e-4
                    (ties if tie else others).append(text)
    print(f"{path}: {os.path.getsize(path)} bytes; sentencepiece vs the tokenizer.json on {sentences} "
          f"sentences: {len(ties)} differ between segmentations of equal score, {len(others)} otherwise")
    for text in ties:
        print("  tie:", repr(text), sp.encode(text, out_type=str))
    if others:
        raise SystemExit("sentencepiece and deberta_spm.tokenizer.json disagree: " + repr(others[:5]))


if __name__ == "__main__":
    main()
