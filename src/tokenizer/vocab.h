// A WordPiece vocabulary: token strings, their ids, and a byte trie that finds
// the longest vocabulary entry starting at a position in one walk.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace runner {

class Vocab {
 public:
  // Tokens in id order (id = index). A repeated string keeps its last id, as in Python.
  // `continuation_prefix` marks word-internal pieces ("##" for BERT).
  explicit Vocab(std::vector<std::string> tokens, std::string continuation_prefix = "##");

  size_t size() const { return tokens_.size(); }
  const std::string& token(int32_t id) const { return tokens_.at(static_cast<size_t>(id)); }
  // -1 when absent.
  int32_t id(std::string_view token) const;

  // Longest entry equal to prefix + word[begin, end) for some end > begin, where the
  // prefix is "" or, when `continuation`, the continuation prefix. Returns its id and sets `end`,
  // or returns -1 when none matches.
  int32_t longest_match(std::string_view word, size_t begin, bool continuation, size_t& end) const;

 private:
  struct Node {
    int32_t token_id = -1;
    uint32_t first_edge = 0;
    uint32_t edge_count = 0;
    int32_t dense = -1;  // index into dense_ when the node has many children
  };
  int32_t child(int32_t node, unsigned char byte) const;
  void build_trie();

  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<Node> nodes_;
  std::vector<unsigned char> edge_bytes_;
  std::vector<int32_t> edge_children_;
  std::vector<int32_t> dense_;  // 256 children per dense node
  int32_t continuation_root_ = -1;
};

// vocab.txt: one token per line, the line number (0-based) is its id.
Vocab load_vocab_txt(const std::string& path);

}  // namespace runner
