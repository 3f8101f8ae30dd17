#!/usr/bin/env bash
# The runner's tokenizer.json pipeline against Hugging Face tokenizers (Rust),
# both on one thread over the same GLUE texts (MRPC + SST-2 train), for each
# golden tokenizer in tests/tokenizer/golden; prints tokens/s and the ratio
# runner / tokenizers (above 1: the runner is faster).
# Usage: bench/tokenizer_json_ab.sh [PYTHON_WITH_TOKENIZERS] [SHARED_DIR] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-/work/venv-torch/bin/python}
shared=${2:-../shared}
repeats=${3:-5}
ninja -C build bench/tokenizer_bench >/dev/null
for name in roberta_bpe deberta_unigram modernbert_bpe deberta_spm xlmr_spm wordpiece_seq llama_bpe; do
  json=tests/tokenizer/golden/$name.tokenizer.json
  ours=$(OMP_NUM_THREADS=1 ./build/bench/tokenizer_bench "$shared" "$repeats" "$json")
  peer=$("$python" bench/tokenizer_json_peer.py "$shared" "$json" "$repeats")
  ours_rate=$(sed -n 's/^\([0-9.]*\) M tokens\/s.*/\1/p' <<<"$ours")
  peer_rate=$(sed -n 's/^peer tokens\/s \([0-9]*\)/\1/p' <<<"$peer")
  awk -v n="$name" -v o="$ours_rate" -v p="$peer_rate" \
    'BEGIN { printf "%-16s runner %.2f M tokens/s  tokenizers %.2f M tokens/s  ratio %.2f\n", n, o, p / 1e6, o * 1e6 / p }'
done
