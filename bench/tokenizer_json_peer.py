#!/usr/bin/env python3
"""The peer of bench/tokenizer_bench.cpp: Hugging Face tokenizers (Rust) on one thread.

Tokenizes the same texts (MRPC train, both sentences, and SST-2 train, read from the TSV
files as the runner's GLUE loader reads them) without special tokens, as encode_batch with
TOKENIZERS_PARALLELISM=false (a Rust loop on one thread, no per-call Python overhead
beyond building the Encoding objects). Prints the best of REPEATS runs as
"peer tokens/s N". Usage: tokenizer_json_peer.py SHARED_DIR TOKENIZER_JSON [REPEATS]
"""
import os
import sys
import time

os.environ["TOKENIZERS_PARALLELISM"] = "false"
os.environ["RAYON_NUM_THREADS"] = "1"

from tokenizers import Tokenizer  # noqa: E402


def texts(shared):
    out = []
    for path, columns in (("data/glue/MRPC/train.tsv", (3, 4)), ("data/glue/SST-2/train.tsv", (0,))):
        with open(os.path.join(shared, path), encoding="utf-8-sig") as f:
            lines = f.read().split("\n")[1:]
        for line in lines:
            if line:
                cells = line.rstrip("\r").split("\t")
                out += [cells[c] for c in columns]
    return out


def main():
    shared, tokenizer_json = sys.argv[1], sys.argv[2]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    tok = Tokenizer.from_file(tokenizer_json)
    tok.no_truncation()
    data = texts(shared)
    best, tokens = 1e30, 0
    for _ in range(repeats):
        start = time.perf_counter()
        encodings = tok.encode_batch(data, add_special_tokens=False)
        best = min(best, time.perf_counter() - start)
        tokens = sum(len(e.ids) for e in encodings)
    print("peer texts %d tokens %d best %.3f s" % (len(data), tokens, best))
    print("peer tokens/s %.0f" % (tokens / best))


if __name__ == "__main__":
    main()
