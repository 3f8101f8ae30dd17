#include "tokenizer/vocab.h"

#include "util/diagnostic.h"
#include "util/input_file.h"

#include <fstream>
#include <map>
#include <sstream>

namespace runner {

Vocab::Vocab(std::vector<std::string> tokens, std::string continuation_prefix)
    : tokens_(std::move(tokens)) {
  ids_.reserve(tokens_.size());
  // Python's load_vocab fills a dict in file order, so a repeated token keeps its last id.
  for (size_t i = 0; i < tokens_.size(); ++i)
    ids_.insert_or_assign(tokens_[i], static_cast<int32_t>(i));
  build_trie();
  continuation_root_ = 0;
  for (char c : continuation_prefix)
    if (continuation_root_ >= 0) continuation_root_ = child(continuation_root_, static_cast<unsigned char>(c));
}

int32_t Vocab::id(std::string_view token) const {
  auto it = ids_.find(std::string(token));
  return it == ids_.end() ? -1 : it->second;
}

// Builds the trie from an ordered map of children per node, then flattens it:
// each node's edges are contiguous and sorted, and wide nodes get a dense table.
void Vocab::build_trie() {
  std::vector<std::map<unsigned char, int32_t>> children(1);
  std::vector<int32_t> ids(1, -1);
  for (const auto& [text, token_id] : ids_) {
    int32_t node = 0;
    for (char c : text) {
      auto byte = static_cast<unsigned char>(c);
      auto it = children[node].find(byte);
      if (it == children[node].end()) {
        children.emplace_back();
        ids.push_back(-1);
        it = children[node].emplace(byte, static_cast<int32_t>(children.size() - 1)).first;
      }
      node = it->second;
    }
    ids[node] = token_id;
  }
  nodes_.assign(children.size(), Node{});
  for (size_t n = 0; n < children.size(); ++n) {
    Node& node = nodes_[n];
    node.token_id = ids[n];
    node.first_edge = static_cast<uint32_t>(edge_bytes_.size());
    node.edge_count = static_cast<uint32_t>(children[n].size());
    for (const auto& [byte, child] : children[n]) {
      edge_bytes_.push_back(byte);
      edge_children_.push_back(child);
    }
    if (node.edge_count > 8) {
      node.dense = static_cast<int32_t>(dense_.size() / 256);
      dense_.resize(dense_.size() + 256, -1);
      for (const auto& [byte, child] : children[n])
        dense_[static_cast<size_t>(node.dense) * 256 + byte] = child;
    }
  }
}

int32_t Vocab::child(int32_t node, unsigned char byte) const {
  const Node& n = nodes_[static_cast<size_t>(node)];
  if (n.dense >= 0) return dense_[static_cast<size_t>(n.dense) * 256 + byte];
  const unsigned char* first = edge_bytes_.data() + n.first_edge;
  for (uint32_t i = 0; i < n.edge_count; ++i)
    if (first[i] == byte) return edge_children_[n.first_edge + i];
  return -1;
}

int32_t Vocab::longest_match(std::string_view word, size_t begin, bool continuation,
                             size_t& end) const {
  int32_t node = continuation ? continuation_root_ : 0;
  int32_t best = -1;
  for (size_t i = begin; node >= 0 && i < word.size(); ++i) {
    node = child(node, static_cast<unsigned char>(word[i]));
    if (node >= 0 && nodes_[static_cast<size_t>(node)].token_id >= 0) {
      best = nodes_[static_cast<size_t>(node)].token_id;
      end = i + 1;
    }
  }
  return best;
}

Vocab load_vocab_txt(const std::string& path) {
  const std::string text = read_input_file(
      {path, "", kMaxDocumentBytes, "check the tokenizer path; it must hold vocab.txt or tokenizer.json"});
  // Python reads vocab.txt in text mode: \n, \r\n and a lone \r all end a line.
  std::vector<std::string> tokens;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find_first_of("\r\n", start);
    if (end == std::string::npos) end = text.size();
    tokens.push_back(text.substr(start, end - start));
    start = end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1);
  }
  if (tokens.empty())
    throw InputError(make_error({path, 0, 0, {}}, {}, "the vocabulary file is empty",
                                "expected one token per line"));
  return Vocab(std::move(tokens));
}

}  // namespace runner
