#include "tokenizer/post_processors.h"

#include "tokenizer/part_registry.h"

#include <algorithm>
#include <map>

namespace runner::hf {

namespace {

// One item of a template: special token ids, or sequence A (0) / B (1).
struct Item {
  std::vector<int32_t> special;
  int sequence = -1;
  int32_t type_id = 0;
};

// Every processor that adds tokens is a template: Roberta and Bert are fixed ones.
class Template : public PostProcessor {
 public:
  Template(std::vector<Item> single, std::vector<Item> pair) : single_(std::move(single)), pair_(std::move(pair)) {}

  size_t added_tokens(bool pair) const override {
    size_t n = 0;
    for (const Item& item : pair ? pair_ : single_) n += item.special.size();
    return n;
  }

  void process(const std::vector<int32_t>& a, const std::vector<int32_t>* b, std::vector<int32_t>& ids,
               std::vector<int32_t>& type_ids) const override {
    for (const Item& item : b ? pair_ : single_) {
      const std::vector<int32_t>& part = item.sequence < 0 ? item.special : item.sequence == 0 ? a : *b;
      ids.insert(ids.end(), part.begin(), part.end());
      type_ids.insert(type_ids.end(), part.size(), item.type_id);
    }
  }

  std::vector<int32_t> special_ids() const override {
    std::vector<int32_t> out;
    for (const auto* items : {&single_, &pair_})
      for (const Item& item : *items) out.insert(out.end(), item.special.begin(), item.special.end());
    return out;
  }

  int32_t largest_type_id(bool pair) const override {
    int32_t top = 0;
    for (const Item& item : pair ? pair_ : single_) top = std::max(top, item.type_id);
    return top;
  }

  Surrounding surrounding() const {
    Surrounding s;
    if (!single_.empty() && !single_.front().special.empty()) s.first = single_.front().special.front();
    if (!single_.empty() && !single_.back().special.empty()) s.last = single_.back().special.back();
    return s;
  }

 private:
  std::vector<Item> single_, pair_;
};

// The ByteLevel processor only trims offsets.
class Nothing : public PostProcessor {
 public:
  explicit Nothing(bool pair_type_one) : pair_type_one_(pair_type_one) {}
  size_t added_tokens(bool) const override { return 0; }
  void process(const std::vector<int32_t>& a, const std::vector<int32_t>* b, std::vector<int32_t>& ids,
               std::vector<int32_t>& type_ids) const override {
    ids.insert(ids.end(), a.begin(), a.end());
    type_ids.insert(type_ids.end(), a.size(), 0);
    if (!b) return;
    ids.insert(ids.end(), b->begin(), b->end());
    type_ids.insert(type_ids.end(), b->size(), pair_type_one_ ? 1 : 0);
  }
  int32_t largest_type_id(bool pair) const override { return pair && pair_type_one_ ? 1 : 0; }

 private:
  bool pair_type_one_;
};

// A token id as the runner stores it: an int32 of 0 or more (a larger one
// would wrap, a negative one index outside every table). Whether the
// vocabulary has it is checked once the tokenizer is built.
int32_t checked_id(const JsonPart& part, const nlohmann::json& v) {
  const bool in_range = v.is_number_unsigned()  ? v.get<unsigned long long>() <= 2147483647ULL
                        : v.is_number_integer() ? v.get<long long>() >= 0 && v.get<long long>() <= 2147483647LL
                                                : false;
  if (!in_range) part.fail("", "expected a token id from 0 to 2147483647, found " + v.dump());
  return static_cast<int32_t>(v.get<long long>());
}

// A type id indexes the model's token type table (2 rows in BERT) and is stored
// in a byte: 0 to 255.
int32_t checked_type_id(const JsonPart& part) {
  const long long t = part.integer("type_id", 0);
  if (t < 0 || t > 255)
    part.fail("type_id", "expected a type id from 0 to 255 (the model's token type table has 2 rows in BERT), "
                         "found " + std::to_string(t));
  return static_cast<int32_t>(t);
}

// ["</s>", 2]: a token and its id.
int32_t token_id(const JsonPart& part) {
  const nlohmann::json& j = part.json();
  if (!j.is_array() || j.size() != 2 || !j[0].is_string() || !j[1].is_number_integer())
    part.fail("", "expected [token, id], found " + j.dump());
  return checked_id(part, j[1]);
}

Item special(int32_t id, int32_t type_id = 0) { return Item{{id}, -1, type_id}; }
Item sequence(int which, int32_t type_id) { return Item{{}, which, type_id}; }

std::vector<Item> template_items(const JsonPart& list, const JsonPart& specials) {
  std::vector<Item> items;
  for (size_t i = 0, n = list.array_size("a template (a list of pieces)"); i < n; ++i) {
    JsonPart piece = list.at(i);
    if (piece.has("Sequence")) {
      JsonPart seq = piece.at("Sequence");
      std::string id = seq.str("id");
      if (id != "A" && id != "B") seq.fail("id", "expected \"A\" or \"B\", found \"" + id + "\"");
      items.push_back(sequence(id == "A" ? 0 : 1, checked_type_id(seq)));
    } else if (piece.has("SpecialToken")) {
      JsonPart tok = piece.at("SpecialToken");
      std::string name = tok.str("id");
      JsonPart entry = specials.at(name.c_str());
      if (!entry.json().is_object()) tok.fail("id", "\"" + name + "\" is not in post_processor.special_tokens");
      Item item{{}, -1, checked_type_id(tok)};
      JsonPart ids = entry.at("ids");
      for (size_t k = 0, m = ids.array_size("a list of ids"); k < m; ++k)
        item.special.push_back(checked_id(ids.at(k), ids.at(k).json()));
      items.push_back(std::move(item));
    } else {
      piece.fail("", "expected {\"Sequence\": ...} or {\"SpecialToken\": ...}, found " + piece.json().dump());
    }
  }
  return items;
}

}  // namespace

std::unique_ptr<PostProcessor> build_roberta_processing(const JsonPart& part) {
  int32_t cls = token_id(part.at("cls")), sep = token_id(part.at("sep"));
  // tokenizers gives every token of a RoBERTa pair type id 0.
  return std::make_unique<Template>(
      std::vector<Item>{special(cls), sequence(0, 0), special(sep)},
      std::vector<Item>{special(cls), sequence(0, 0), special(sep), special(sep), sequence(1, 0), special(sep)});
}

std::unique_ptr<PostProcessor> build_bert_processing(const JsonPart& part) {
  int32_t cls = token_id(part.at("cls")), sep = token_id(part.at("sep"));
  return std::make_unique<Template>(
      std::vector<Item>{special(cls), sequence(0, 0), special(sep)},
      std::vector<Item>{special(cls), sequence(0, 0), special(sep), sequence(1, 1), special(sep, 1)});
}

std::unique_ptr<PostProcessor> build_template_processing(const JsonPart& part) {
  JsonPart specials = part.at("special_tokens");
  return std::make_unique<Template>(template_items(part.at("single"), specials),
                                    template_items(part.at("pair"), specials));
}

std::unique_ptr<PostProcessor> build_byte_level_processing(const JsonPart&) { return std::make_unique<Nothing>(true); }

std::unique_ptr<PostProcessor> no_post_processor() { return std::make_unique<Nothing>(true); }

// Only one processor of a Sequence may add tokens (ByteLevel + a template, as
// Llama-3-style files have it); that one does the work.
std::unique_ptr<PostProcessor> build_post_processor_sequence(const JsonPart& part) {
  JsonPart list = part.at("processors");
  std::unique_ptr<PostProcessor> adding;
  for (size_t i = 0, n = list.array_size("a list of post-processors"); i < n; ++i) {
    std::unique_ptr<PostProcessor> p = build_post_processor(list.at(i));
    if (dynamic_cast<Nothing*>(p.get())) continue;
    if (adding) list.at(i).unsupported("a Sequence with two post-processors that add tokens", {"one such processor"});
    adding = std::move(p);
  }
  return adding ? std::move(adding) : no_post_processor();
}

Surrounding surrounding_specials(const PostProcessor& post) {
  if (auto* t = dynamic_cast<const Template*>(&post)) return t->surrounding();
  return {};
}

}  // namespace runner::hf
