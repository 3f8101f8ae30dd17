#!/usr/bin/env python3
"""Goldens for the runner's tokenizer.json pipeline (src/tokenizer/), made by Hugging Face `tokenizers`.

The real tokenizer.json files of roberta-base, microsoft/deberta-v3-base and
answerdotai/ModernBERT-base could not be had here (no network but PyPI; no PyPI package
searched carries one: transformers, tokenizers, sentence-transformers' wheels hold code
only). So this script TRAINS three small tokenizers with `tokenizers` on GLUE text (MRPC
and SST-2 train.tsv), each laid out as the real family's file is:

  roberta_bpe     byte-level BPE (ByteLevel pre-tokenizer, no normalizer), RobertaProcessing
                  (<s> A </s></s> B </s>), special tokens <s> <pad> </s> <unk> <mask>
                  (<mask> with lstrip, as roberta-base's)
  deberta_unigram Unigram with byte_fallback (256 <0xNN> pieces added) + Metaspace
                  (prepend_scheme "always", split), normalizer Sequence[NFKC, Replace "``" -> '"',
                  Strip right], TemplateProcessing [CLS] A [SEP] B [SEP] with type ids 0/1
  modernbert_bpe  byte-level BPE with ignore_merges, NFC normalizer, TemplateProcessing
                  [CLS] A [SEP] (B [SEP]), special tokens [UNK] [CLS] [SEP] [PAD] [MASK] and a
                  non-special added token "<url>" (normalized, rstrip)
  deberta_spm     a SentencePiece Unigram model (sentencepiece's trainer, nmt_nfkc rule,
                  byte_fallback) wrapped as transformers' DebertaV2Converter wraps
                  deberta-v3's spm.model: normalizer Sequence[Strip, Precompiled (the model's
                  charsmap), Replace Regex " {2,}" -> " "], Metaspace, [CLS]/[SEP] template
  xlmr_spm        such a model (trained with a small rule table, SMALL_RULES, for a small
                  charsmap) wrapped as XLMRobertaConverter wraps XLM-R's: <s> <pad> </s>
                  <unk> first, normalizer Sequence[Precompiled, Strip right, Replace Regex
                  " {2,}" -> "▁"], pre-tokenizer Sequence[WhitespaceSplit, Metaspace],
                  RobertaProcessing

  wordpiece_seq   WordPiece outside BERT's own layout: normalizer Sequence[NFD, Lowercase,
                  StripAccents], Whitespace pre-tokenizer, BertProcessing
  llama_bpe       BPE laid out as Llama 2's tokenizer.json: no pre-tokenizer, normalizer
                  Sequence[Prepend "▁", Replace " " -> "▁"], byte_fallback with <0xNN> pieces,
                  fuse_unk, TemplateProcessing "<s> $A" (trained with a Metaspace
                  pre-tokenizer, so that merges stay inside words, then re-laid out)

Vocabularies are small (2000-3000) so that the committed files stay small. The BPE trainer
gives the same files on every run; tokenizers' Unigram trainer does not (its scores vary in the
last digits between runs), so a rerun rewrites deberta_unigram's three files together, each
run's files consistent with each other.

For each tokenizer it writes to --out (tests/tokenizer/golden/):
  NAME.tokenizer.json     the trained tokenizer (one line: not pretty-printed)
  NAME.hashes.txt         per GLUE file (MRPC train/dev as pairs, SST-2 train/dev as single
                          sentences, max_length 128, truncation longest_first): a line
                          "file FILE lines N total HASH" (HASH: FNV-1a 64 over every line's
                          encoding in order) followed by the low byte of each line's own
                          FNV-1a 64, two hex digits per line, 64 lines to a text line. The
                          total detects any mismatch; the per-line bytes point at the lines.
  NAME.edge_cases.jsonl   full ids, attention mask and type ids of every edge case below

The hash of one encoding: FNV-1a 64 (offset 0xcbf29ce484222325, prime 0x100000001b3) over
the bytes of its ids, then its attention mask, then its type ids, each as little-endian
int32. The file total runs the same FNV-1a state over all lines' bytes in order.
tests/tokenizer/test_tokenizer_json_parity.cpp defines the same hash.

Rows are the TSV lines split on tabs (no quoting), the header skipped, the trailing newline
(and a \\r) removed: MRPC columns 3 and 4, SST-2 column 0.

Run in a virtual environment outside the project:

    python3 -m venv /tmp/venv-tok && /tmp/venv-tok/bin/pip install tokenizers==0.23.3 sentencepiece protobuf
    /tmp/venv-tok/bin/python scripts/golden/tokenizer_json_goldens.py \\
        --glue ../shared/data/glue --out tests/tokenizer/golden
"""
import argparse
import json
import os
import struct

import tokenizers
from tokenizers import (AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors,
                        trainers)

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK64 = (1 << 64) - 1


def fnv1a(data, h=FNV_OFFSET):
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK64
    return h


def encoding_bytes(enc):
    out = b""
    for seq in (enc.ids, enc.attention_mask, enc.type_ids):
        out += struct.pack("<%di" % len(seq), *seq)
    return out


def read_rows(path, columns):
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    rows = []
    for line in lines[1:]:
        if line.endswith("\r"):
            line = line[:-1]
        if not line:
            continue
        cells = line.split("\t")
        rows.append(tuple(cells[c] for c in columns))
    return rows


def glue_files(glue):
    return [
        ("MRPC/train.tsv", read_rows(os.path.join(glue, "MRPC/train.tsv"), (3, 4))),
        ("MRPC/dev.tsv", read_rows(os.path.join(glue, "MRPC/dev.tsv"), (3, 4))),
        ("SST-2/train.tsv", read_rows(os.path.join(glue, "SST-2/train.tsv"), (0,))),
        ("SST-2/dev.tsv", read_rows(os.path.join(glue, "SST-2/dev.tsv"), (0,))),
    ]


def training_text(files):
    for name, rows in files:
        if name.endswith("train.tsv"):
            for row in rows:
                yield from row


def roberta_bpe(files):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    special = ["<s>", "<pad>", "</s>", "<unk>", AddedToken("<mask>", lstrip=True, special=True)]
    trainer = trainers.BpeTrainer(vocab_size=3000, special_tokens=special,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(training_text(files), trainer)
    tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")),
                                                      ("<s>", tok.token_to_id("<s>")), trim_offsets=True,
                                                      add_prefix_space=False)
    return tok


def deberta_unigram(files):
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace("``", '"'),
                                           normalizers.Strip(left=False, right=True)])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    special = ["[PAD]", "[CLS]", "[SEP]", "[UNK]", AddedToken("[MASK]", lstrip=True, special=True)]
    trainer = trainers.UnigramTrainer(vocab_size=2500, special_tokens=special, unk_token="[UNK]",
                                      show_progress=False)
    tok.train_from_iterator(training_text(files), trainer)
    # byte_fallback as SentencePiece-converted files have it: <0xNN> pieces in the vocabulary.
    spec = json.loads(tok.to_str())
    low = min(score for _, score in spec["model"]["vocab"])
    spec["model"]["vocab"] += [["<0x%02X>" % b, low - 1.0] for b in range(256)]
    spec["model"]["byte_fallback"] = True
    tok = Tokenizer.from_str(json.dumps(spec))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS]:0 $A:0 [SEP]:0", pair="[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return tok


def modernbert_bpe(files):
    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    special = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", AddedToken("[MASK]", lstrip=True, special=True)]
    trainer = trainers.BpeTrainer(vocab_size=2500, special_tokens=special,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(training_text(files), trainer)
    tok.add_tokens([AddedToken("<url>", rstrip=True, normalized=True)])
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS]:0 $A:0 [SEP]:0", pair="[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return tok


# A small normalization rule table (source code points, target code points) for xlmr_spm:
# its charsmap stays a few kB where nmt_nfkc's is 290 kB, and it has multi-character sources
# (a combining sequence, an emoji with a skin tone: a grapheme of 8 bytes).
SMALL_RULES = [
    ("FB01", "66 69"), ("FF26", "46"), ("FF55", "75"), ("3000", "20"), ("2460", "31"), ("0009", "20"),
    ("65 301", "E9"), ("1F44D 1F3FD", "1F44D"), ("C5", "41 30A"), ("200B", ""),
]


def train_spm(files, rules=None, keep=None):
    """A SentencePiece Unigram model trained on the GLUE text: its pieces and its charsmap.

    rules: None for the nmt_nfkc rule, else (source, target) pairs of a rule table.
    keep: a path to copy the model file (spm.model) to (scripts/golden/spm_model_golden.py)."""
    import tempfile

    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2

    with tempfile.TemporaryDirectory() as tmp:
        text = os.path.join(tmp, "text.txt")
        with open(text, "w", encoding="utf-8") as f:
            for sentence in training_text(files):
                f.write(sentence.strip() + "\n")
        normalization = {"normalization_rule_name": "nmt_nfkc"}
        if rules is not None:
            tsv = os.path.join(tmp, "rules.tsv")
            with open(tsv, "w") as f:
                f.write("".join("%s\t%s\n" % rule for rule in rules))
            normalization = {"normalization_rule_tsv": tsv}
        spm.SentencePieceTrainer.train(
            input=text, model_prefix=os.path.join(tmp, "m"), vocab_size=2500, model_type="unigram",
            byte_fallback=True, **normalization, pad_id=0, pad_piece="[PAD]", bos_id=1,
            bos_piece="[CLS]", eos_id=2, eos_piece="[SEP]", unk_id=3, unk_piece="[UNK]",
            user_defined_symbols=["[MASK]"], num_threads=1, minloglevel=2)
        proto = sentencepiece_model_pb2.ModelProto()
        with open(os.path.join(tmp, "m.model"), "rb") as f:
            model_bytes = f.read()
        proto.ParseFromString(model_bytes)
        if keep:
            with open(keep, "wb") as f:
                f.write(model_bytes)
    return [(p.piece, p.score) for p in proto.pieces], proto.normalizer_spec.precompiled_charsmap


def spm_tokenizer(vocab, unk_id, normalizer, pre_tokenizer, post_processor, specials):
    tok = Tokenizer(models.Unigram(vocab, unk_id=unk_id, byte_fallback=True))
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer
    tok.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in specials])
    tok.post_processor = post_processor(tok)
    return tok


def deberta_spm(pieces, charsmap):
    # DebertaV2Converter: vocab as in the model, [MASK] a user-defined piece.
    normalizer = normalizers.Sequence([normalizers.Strip(), normalizers.Precompiled(charsmap),
                                       normalizers.Replace(Regex(" {2,}"), " ")])
    pre = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)

    def post(tok):
        return processors.TemplateProcessing(
            single="[CLS]:0 $A:0 [SEP]:0", pair="[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
            special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])

    return spm_tokenizer(pieces, 3, normalizer, pre, post, ["[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]"])


def xlmr_spm(pieces, charsmap):
    # XLMRobertaConverter: fairseq's four specials first, then the pieces after the model's own
    # control symbols, <mask> last.
    vocab = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
    vocab += [p for p in pieces if p[0] not in ("[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]")]
    vocab += [("<mask>", 0.0)]
    normalizer = normalizers.Sequence([normalizers.Precompiled(charsmap), normalizers.Strip(left=False, right=True),
                                       normalizers.Replace(Regex(" {2,}"), "▁")])
    pre = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                   pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)])

    def post(tok):
        return processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")))

    return spm_tokenizer(vocab, 3, normalizer, pre, post, ["<s>", "<pad>", "</s>", "<unk>", "<mask>"])


def wordpiece_seq(files):
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()])
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.WordPieceTrainer(vocab_size=2500, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
                                        show_progress=False)
    tok.train_from_iterator(training_text(files), trainer)
    tok.post_processor = processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")),
                                                   ("[CLS]", tok.token_to_id("[CLS]")))
    return tok


def llama_bpe(files):
    tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True, byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="never", split=True)
    trainer = trainers.BpeTrainer(vocab_size=2000, special_tokens=["<unk>", "<s>", "</s>"], show_progress=False,
                                  limit_alphabet=150)
    tok.train_from_iterator(training_text(files), trainer)
    spec = json.loads(tok.to_str())
    vocab = spec["model"]["vocab"]
    for b in range(256):
        vocab.setdefault("<0x%02X>" % b, len(vocab))
    spec["pre_tokenizer"] = None
    tok = Tokenizer.from_str(json.dumps(spec))
    tok.post_processor = processors.TemplateProcessing(
        single="<s>:0 $A:0", pair="<s>:0 $A:0 <s>:1 $B:1", special_tokens=[("<s>", tok.token_to_id("<s>"))])
    return tok


# (text_a, text_b or None, max_length)
EDGE_TEXTS = [
    "Café naïve résumé façade Ångström",
    "e\u0301 composed vs decomposed \u00e9",
    "ﬁ ligature, ① circled, Ｆｕｌｌｗｉｄｔｈ, ㎏",
    "北京欢迎你 東京 서울 日本語のテキスト",
    "emoji 😀👍🏽 and ZWJ 👨‍👩‍👧‍👦 family 🏳️‍🌈 flag",
    "control\x01chars\x7f and \u200b zero width \ufeff bom",
    "tabs\tand\nnewlines\r\nand   runs     of      spaces",
    "   leading and trailing spaces   ",
    "",
    " ",
    "supercalifragilisticexpialidociousantidisestablishmentarianism" * 3,
    "<s>glued</s>special<mask>tokens<pad>",
    "[CLS]glued[SEP]special[MASK]tokens [PAD] [UNK]",
    "a <mask> b  <mask>c",
    "visit <url>   now <url>x",
    "It's they're we've I'm you'll he'd 'quoted' ''double''",
    "numbers 1234567 3.14159 ٣٤٥ ½",
    "punctuation!!! ??? ... --- (brackets) [square] {curly}",
    "``quoted'' text with `` backticks",
    "Ünïcödé ÀÉÎÕÜ ǅ ß ẞ İstanbul",
    "▁already▁has▁metaspace",
    "mixed 中文english混合text",
]
EDGE_PAIRS = [
    ("The quick brown fox jumps over the lazy dog .", "A fast auburn fox leapt over a sleepy hound ."),
    ("short", "a much longer second sentence that must be cut down to size"),
    ("a much longer first sentence that must be cut down to size", "short"),
    ("equal length one two three", "equal length four five six"),
    ("😀👍🏽 emoji pair", "北京欢迎你"),
    ("", "empty first"),
]


def edge_cases():
    cases = []
    for text in EDGE_TEXTS:
        for max_length in (8, 512):
            cases.append((text, None, max_length))
    for a, b in EDGE_PAIRS:
        for max_length in (8, 9, 16, 512):
            cases.append((a, b, max_length))
    return cases


def encode(tok, a, b, max_length):
    tok.enable_truncation(max_length=max_length, strategy="longest_first")
    return tok.encode(a, b) if b is not None else tok.encode(a)


def write_outputs(name, tok, files, out):
    tok.save(os.path.join(out, name + ".tokenizer.json"), pretty=False)
    with open(os.path.join(out, name + ".hashes.txt"), "w") as f:
        for file_name, rows in files:
            total, low_bytes = FNV_OFFSET, []
            for row in rows:
                data = encoding_bytes(encode(tok, row[0], row[1] if len(row) > 1 else None, 128))
                total = fnv1a(data, total)
                low_bytes.append("%02x" % (fnv1a(data) & 0xFF))
            f.write("file %s lines %d total %016x\n" % (file_name, len(rows), total))
            for i in range(0, len(low_bytes), 64):
                f.write("".join(low_bytes[i:i + 64]) + "\n")
    with open(os.path.join(out, name + ".edge_cases.jsonl"), "w") as f:
        for a, b, max_length in edge_cases():
            enc = encode(tok, a, b, max_length)
            f.write(json.dumps({"text_a": a, "text_b": b, "max_length": max_length, "input_ids": enc.ids,
                                "attention_mask": enc.attention_mask, "token_type_ids": enc.type_ids},
                               ensure_ascii=True) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--glue", default="../shared/data/glue")
    parser.add_argument("--out", default="tests/tokenizer/golden")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    files = glue_files(args.glue)
    pieces, charsmap = train_spm(files)
    small_pieces, small_charsmap = train_spm(files, SMALL_RULES)
    for name, build in (("roberta_bpe", lambda: roberta_bpe(files)), ("deberta_unigram", lambda: deberta_unigram(files)),
                        ("modernbert_bpe", lambda: modernbert_bpe(files)),
                        ("deberta_spm", lambda: deberta_spm(pieces, charsmap)),
                        ("xlmr_spm", lambda: xlmr_spm(small_pieces, small_charsmap)),
                        ("wordpiece_seq", lambda: wordpiece_seq(files)), ("llama_bpe", lambda: llama_bpe(files))):
        write_outputs(name, build(), files, args.out)
        print("wrote", name, "with tokenizers", tokenizers.__version__)


if __name__ == "__main__":
    main()
