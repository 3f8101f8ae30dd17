#include "tokenizer/bpe_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

namespace runner::hf {

std::vector<std::string> read_vocab_object(const JsonPart& vocab) {
  if (!vocab.json().is_object()) vocab.fail("", "expected an object mapping each token to its id");
  std::vector<std::string> tokens(vocab.json().size());
  std::vector<bool> seen(tokens.size(), false);
  for (const auto& [token, id_json] : vocab.json().items()) {
    long long id = id_json.is_number_integer() ? id_json.get<long long>() : -1;
    if (id < 0 || static_cast<size_t>(id) >= tokens.size() || seen[static_cast<size_t>(id)])
      vocab.fail("", fmt::format("maps \"{}\" to {}, expected ids 0..{} each used once", token, id_json.dump(),
                                 tokens.size() - 1));
    tokens[static_cast<size_t>(id)] = token;
    seen[static_cast<size_t>(id)] = true;
  }
  return tokens;
}

namespace {

struct Merge {
  uint32_t rank;
  int32_t id;
};

uint64_t pair_key(int32_t a, int32_t b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

class Bpe : public Model {
 public:
  std::vector<std::string> tokens;
  std::unordered_map<std::string, int32_t> ids;
  std::unordered_map<uint64_t, Merge> merges;
  std::string prefix, suffix;
  int32_t unk = -1;
  bool fuse_unk = false, byte_fallback = false, ignore_merges = false;

  int32_t token_to_id(std::string_view token) const override {
    auto it = ids.find(std::string(token));
    return it == ids.end() ? -1 : it->second;
  }
  std::string id_to_token(int32_t id) const override {
    return id >= 0 && static_cast<size_t>(id) < tokens.size() ? tokens[static_cast<size_t>(id)] : std::string();
  }
  size_t vocab_size() const override { return tokens.size(); }

  void tokenize(std::string_view word, std::vector<int32_t>& out) const override {
    if (ignore_merges)
      if (int32_t id = token_to_id(word); id >= 0) {
        out.push_back(id);
        return;
      }
    thread_local std::vector<int32_t> symbols;
    symbols.clear();
    split_chars(word, symbols);
    merge_all(symbols);
    out.insert(out.end(), symbols.begin(), symbols.end());
  }

 private:
  // One symbol per character (prefixed/suffixed as the model says); a character
  // outside the vocabulary becomes its <0xNN> bytes, else unk, else nothing.
  void split_chars(std::string_view word, std::vector<int32_t>& symbols) const {
    bool pending_unk = false;
    std::string s;
    for (size_t i = 0; i < word.size();) {
      size_t len = 1;
      auto lead = static_cast<unsigned char>(word[i]);
      if (lead >= 0xF0) len = 4;
      else if (lead >= 0xE0) len = 3;
      else if (lead >= 0xC0) len = 2;
      len = std::min(len, word.size() - i);
      s.assign(i > 0 ? prefix : std::string());
      s.append(word.substr(i, len));
      i += len;
      if (i == word.size()) s += suffix;
      if (auto it = ids.find(s); it != ids.end()) {
        if (pending_unk) symbols.push_back(unk);
        pending_unk = false;
        symbols.push_back(it->second);
        continue;
      }
      if (byte_fallback && add_bytes(s, symbols)) continue;
      if (unk < 0) continue;
      if (pending_unk && !fuse_unk) symbols.push_back(unk);
      pending_unk = true;
    }
    if (pending_unk) symbols.push_back(unk);
  }

  bool add_bytes(const std::string& s, std::vector<int32_t>& symbols) const {
    size_t before = symbols.size();
    for (unsigned char b : s) {
      auto it = ids.find(fmt::format("<0x{:02X}>", b));
      if (it == ids.end()) {
        symbols.resize(before);
        return false;
      }
      symbols.push_back(it->second);
    }
    return true;
  }

  static constexpr uint32_t kNoMerge = UINT32_MAX;

  uint32_t rank_of(int32_t a, int32_t b, int32_t& id) const {
    auto it = merges.find(pair_key(a, b));
    if (it == merges.end()) return kNoMerge;
    id = it->second.id;
    return it->second.rank;
  }

  // A pair of neighbours that a merge may join: the symbols at `left` and
  // next[left] when it was found, and what they become.
  struct Candidate {
    uint32_t rank, left;
    int32_t a, b, merged;
    // The heap's top is the lowest rank, the leftmost on a tie.
    bool operator<(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
  };

  // Applies the lowest-ranked merge (the leftmost on a tie) until none applies,
  // as tokenizers does: a heap of candidate pairs over a linked list of
  // symbols, so that a word of n characters (a whole 1 MB line when no
  // pre-tokenizer splits it) takes n log n steps, not n^2. A candidate whose
  // symbols changed since it was found is skipped when it comes up.
  void merge_all(std::vector<int32_t>& symbols) const {
    const size_t n = symbols.size();
    if (n < 2) return;
    thread_local std::vector<uint32_t> next, prev;  // n: none
    thread_local std::vector<Candidate> heap;
    next.resize(n);
    prev.resize(n);
    heap.clear();
    for (size_t i = 0; i < n; ++i) {
      next[i] = static_cast<uint32_t>(i + 1);
      prev[i] = static_cast<uint32_t>(i == 0 ? n : i - 1);
    }
    auto consider = [&](uint32_t left) {
      if (left >= n || next[left] >= n) return;
      Candidate c{kNoMerge, left, symbols[left], symbols[next[left]], -1};
      c.rank = rank_of(c.a, c.b, c.merged);
      if (c.rank == kNoMerge) return;
      heap.push_back(c);
      std::push_heap(heap.begin(), heap.end());
    };
    for (uint32_t i = 0; i + 1 < n; ++i) consider(i);
    constexpr int32_t kGone = -1;  // a symbol merged into its left neighbour
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end());
      const Candidate c = heap.back();
      heap.pop_back();
      const uint32_t right = next[c.left];
      if (symbols[c.left] != c.a || right >= n || symbols[right] != c.b) continue;
      symbols[c.left] = c.merged;
      symbols[right] = kGone;
      next[c.left] = next[right];
      if (next[right] < n) prev[next[right]] = c.left;
      consider(prev[c.left]);
      consider(c.left);
    }
    symbols.erase(std::remove(symbols.begin(), symbols.end(), kGone), symbols.end());
  }
};

// A merge is "a b" (older files) or ["a", "b"].
std::pair<std::string, std::string> merge_pair(const JsonPart& merge) {
  const nlohmann::json& j = merge.json();
  if (j.is_array() && j.size() == 2 && j[0].is_string() && j[1].is_string())
    return {j[0].get<std::string>(), j[1].get<std::string>()};
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    size_t space = s.find(' ', 1);
    if (space != std::string::npos && s.find(' ', space + 1) == std::string::npos)
      return {s.substr(0, space), s.substr(space + 1)};
  }
  merge.fail("", "expected a merge \"A B\" or [\"A\", \"B\"], found " + j.dump());
}

}  // namespace

std::unique_ptr<Model> build_bpe(const JsonPart& part) {
  auto bpe = std::make_unique<Bpe>();
  if (part.has("dropout") && part.number("dropout") != 0.0)
    part.at("dropout").unsupported("BPE dropout (random segmentation)", {"dropout null or 0"});
  bpe->tokens = read_vocab_object(part.at("vocab"));
  for (size_t i = 0; i < bpe->tokens.size(); ++i) bpe->ids.emplace(bpe->tokens[i], static_cast<int32_t>(i));
  bpe->prefix = part.str("continuing_subword_prefix", std::string());
  bpe->suffix = part.str("end_of_word_suffix", std::string());
  bpe->fuse_unk = part.flag("fuse_unk", false);
  bpe->byte_fallback = part.flag("byte_fallback", false);
  bpe->ignore_merges = part.flag("ignore_merges", false);
  if (part.has("unk_token")) {
    bpe->unk = bpe->token_to_id(part.str("unk_token"));
    if (bpe->unk < 0) part.fail("unk_token", "\"" + part.str("unk_token") + "\" is not in model.vocab");
  }
  JsonPart merges = part.at("merges");
  for (size_t rank = 0, n = merges.array_size("a list of merges"); rank < n; ++rank) {
    auto [a, b] = merge_pair(merges.at(rank));
    std::string joined = a + (!bpe->prefix.empty() && b.rfind(bpe->prefix, 0) == 0 ? b.substr(bpe->prefix.size()) : b);
    int32_t ia = bpe->token_to_id(a), ib = bpe->token_to_id(b), id = bpe->token_to_id(joined);
    if (ia < 0 || ib < 0 || id < 0)
      merges.at(rank).fail("", "merge \"" + a + " " + b + "\" names a token that is not in model.vocab");
    bpe->merges.insert_or_assign(pair_key(ia, ib), Merge{static_cast<uint32_t>(rank), id});  // a repeated merge keeps its last rank, as tokenizers
  }
  return bpe;
}

}  // namespace runner::hf
