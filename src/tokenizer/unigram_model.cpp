#include "tokenizer/unigram_model.h"

#include "util/diagnostic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace runner::hf {

namespace {

// tokenizers' penalty of an unknown character below the lowest piece score.
constexpr double kUnkPenalty = 10.0;

// A byte trie of the pieces: walking it from a position lists every piece that
// starts there.
class PieceTrie {
 public:
  PieceTrie() : nodes_(1) {}
  void add(const std::string& piece, int32_t id) {
    int32_t node = 0;
    for (unsigned char b : piece) {
      int32_t next = child(node, b);
      if (next < 0) {
        next = static_cast<int32_t>(nodes_.size());
        nodes_[static_cast<size_t>(node)].children.emplace_back(b, next);
        nodes_.emplace_back();
      }
      node = next;
    }
    nodes_[static_cast<size_t>(node)].id = id;
  }
  // Calls fn(end, id) for each piece text[begin, end).
  template <class Fn>
  void prefixes(std::string_view text, size_t begin, Fn fn) const {
    int32_t node = 0;
    for (size_t i = begin; i < text.size(); ++i) {
      node = child(node, static_cast<unsigned char>(text[i]));
      if (node < 0) return;
      if (int32_t id = nodes_[static_cast<size_t>(node)].id; id >= 0) fn(i + 1, id);
    }
  }

 private:
  struct Node {
    std::vector<std::pair<unsigned char, int32_t>> children;
    int32_t id = -1;
  };
  int32_t child(int32_t node, unsigned char b) const {
    for (const auto& [byte, next] : nodes_[static_cast<size_t>(node)].children)
      if (byte == b) return next;
    return -1;
  }
  std::vector<Node> nodes_;
};

size_t utf8_length(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

class Unigram : public Model {
 public:
  std::vector<std::string> pieces;
  std::vector<double> scores;
  std::unordered_map<std::string, int32_t> ids;
  PieceTrie trie;
  int32_t unk = -1;
  bool byte_fallback = false;
  std::string file;  // the tokenizer's file, named when a text needs the missing unk
  double min_score = std::numeric_limits<double>::infinity();

  int32_t token_to_id(std::string_view token) const override {
    auto it = ids.find(std::string(token));
    return it == ids.end() ? -1 : it->second;
  }
  std::string id_to_token(int32_t id) const override {
    return id >= 0 && static_cast<size_t>(id) < pieces.size() ? pieces[static_cast<size_t>(id)] : std::string();
  }
  size_t vocab_size() const override { return pieces.size(); }

  void tokenize(std::string_view word, std::vector<int32_t>& out) const override {
    if (word.empty()) return;
    thread_local std::vector<std::string_view> found;
    found.clear();
    viterbi(word, found);
    for (std::string_view piece : found) emit(piece, out);
  }

 private:
  struct Best {
    double score = 0;
    size_t start = 0;
    int32_t id = -1;
    bool reached = false;  // some path ends here
  };

  void viterbi(std::string_view text, std::vector<std::string_view>& found) const {
    thread_local std::vector<Best> best;
    best.assign(text.size() + 1, Best{});
    const double unk_score = min_score - kUnkPenalty;
    for (size_t at = 0; at < text.size();) {
      const double here = best[at].score;
      const size_t char_len = std::min(utf8_length(static_cast<unsigned char>(text[at])), text.size() - at);
      bool whole_char = false;
      trie.prefixes(text, at, [&](size_t end, int32_t id) {
        double candidate = scores[static_cast<size_t>(id)] + here;
        Best& target = best[end];
        if (!target.reached || candidate > target.score) target = Best{candidate, at, id, true};
        whole_char = whole_char || end - at == char_len;
      });
      if (!whole_char) {
        if (unk < 0)
          throw InputError(make_error({file, 0, 0, {}}, "model.unk_id",
                                      "the Unigram model has no unk_id, and a text has a character outside its "
                                      "vocabulary",
                                      "set model.unk_id to the id of the unknown piece (\"<unk>\"), as tokenizers "
                                      "needs for such a text"));
        Best& target = best[at + char_len];
        double candidate = unk_score + here;
        if (!target.reached || candidate > target.score) target = Best{candidate, at, unk, true};
      }
      at += char_len;
    }
    // Back from the end; consecutive unknown characters become one piece.
    size_t end = text.size(), unk_end = std::string::npos;
    while (end > 0) {
      const Best& node = best[end];
      const bool is_unk = unk >= 0 && node.id == unk;
      if (!is_unk && unk_end != std::string::npos) {
        found.push_back(text.substr(end, unk_end - end));
        unk_end = std::string::npos;
      }
      if (is_unk && unk_end == std::string::npos) unk_end = end;
      if (!is_unk) found.push_back(text.substr(node.start, end - node.start));
      end = node.start;
    }
    if (unk_end != std::string::npos) found.push_back(text.substr(0, unk_end));
    std::reverse(found.begin(), found.end());
  }

  // A piece's id; one outside the vocabulary (fused unknown characters) becomes
  // its <0xNN> bytes with byte_fallback, else unk.
  void emit(std::string_view piece, std::vector<int32_t>& out) const {
    if (int32_t id = token_to_id(piece); id >= 0) {
      out.push_back(id);
      return;
    }
    if (byte_fallback) {
      size_t before = out.size();
      bool all = true;
      for (unsigned char b : piece) {
        int32_t id = token_to_id(fmt::format("<0x{:02X}>", b));
        if (id < 0) {
          all = false;
          break;
        }
        out.push_back(id);
      }
      if (all) return;
      out.resize(before);
    }
    out.push_back(unk);
  }
};

}  // namespace

std::unique_ptr<Model> build_unigram(const JsonPart& part) {
  auto model = std::make_unique<Unigram>();
  JsonPart vocab = part.at("vocab");
  for (size_t i = 0, n = vocab.array_size("a list of [piece, score] pairs"); i < n; ++i) {
    const nlohmann::json& entry = vocab.at(i).json();
    if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number())
      vocab.at(i).fail("", "expected [piece, score], found " + entry.dump());
    // A NaN or infinite score would decide every path through it in the Viterbi search.
    if (!std::isfinite(entry[1].get<double>()))
      vocab.at(i).fail("", "expected a finite score (a log probability) for \"" + entry[0].get<std::string>() +
                               "\", found " + fmt::format("{}", entry[1].get<double>()));
    model->pieces.push_back(entry[0].get<std::string>());
    model->scores.push_back(entry[1].get<double>());
    model->min_score = std::min(model->min_score, model->scores.back());
    model->ids.emplace(model->pieces.back(), static_cast<int32_t>(i));
    model->trie.add(model->pieces.back(), static_cast<int32_t>(i));
  }
  model->file = part.file();
  if (model->pieces.empty()) vocab.fail("", "expected at least one [piece, score] pair, found an empty vocabulary");
  if (part.has("unk_id")) {
    long long unk = part.integer("unk_id");
    if (unk < 0 || static_cast<size_t>(unk) >= model->pieces.size())
      part.fail("unk_id", fmt::format("{} is outside the vocabulary (0..{})", unk, model->pieces.size() - 1));
    model->unk = static_cast<int32_t>(unk);
  }
  model->byte_fallback = part.flag("byte_fallback", false);
  return model;
}

}  // namespace runner::hf
