#include "data/qa_features.h"

#include "tokenizer/json_tokenizer.h"
#include "util/diagnostic.h"

#include <algorithm>

namespace runner {
namespace qa_feature_parts {

// Marker ids that no vocabulary has: the post-processor copies them through,
// so each output position tells which sequence and token it holds.
constexpr int32_t kSecondBase = -(1 << 24);
int32_t marker(int seq, size_t i) { return (seq == 0 ? -1 : kSecondBase - 1) - static_cast<int32_t>(i); }

struct Placed {
  Encoding encoding;
  std::vector<int8_t> sequence;  // 0 first text, 1 second, -1 special
  std::vector<int32_t> index;    // the token's index in its text
};

Placed place_pair(const Tokenizer& tokenizer, size_t a_size, size_t b_begin, size_t b_end) {
  std::vector<int32_t> a(a_size), b(b_end - b_begin);
  for (size_t i = 0; i < a.size(); ++i) a[i] = marker(0, i);
  for (size_t i = 0; i < b.size(); ++i) b[i] = marker(1, b_begin + i);
  Placed p;
  if (const auto* json = dynamic_cast<const JsonTokenizer*>(&tokenizer))
    json->parts().post_processor->process(a, &b, p.encoding.input_ids, p.encoding.token_type_ids);
  else
    p.encoding = assemble(tokenizer.special_ids(), a, &b);
  for (int32_t id : p.encoding.input_ids) {
    if (id >= 0) p.sequence.push_back(-1), p.index.push_back(-1);
    else if (id > kSecondBase) p.sequence.push_back(0), p.index.push_back(-1 - id);
    else p.sequence.push_back(1), p.index.push_back(kSecondBase - 1 - id);
  }
  return p;
}

size_t added_for_pair(const Tokenizer& tokenizer) {
  if (const auto* json = dynamic_cast<const JsonTokenizer*>(&tokenizer)) return json->parts().post_processor->added_tokens(true);
  return 3;  // [CLS] A [SEP] B [SEP]
}

// The windows [begin, end) of a sequence of `size` tokens cut to `room` with
// `stride` shared, as tokenizers' Encoding::truncate makes them.
std::vector<std::pair<size_t, size_t>> window_ranges(size_t size, size_t room, size_t stride) {
  if (size <= room) return {{0, size}};
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t start = 0;; start += room - stride) {
    const size_t stop = std::min(start + room, size);
    out.emplace_back(start, stop);
    if (stop == size) return out;
  }
}

// Padding to max_length; the padded positions have offsets (0, 0), which
// run_qa.py's position search walks over like any other.
void pad(QaFeature& f, std::vector<CharSpan>& spans, const Tokenizer& tokenizer, int max_length, bool on_right) {
  const size_t n = f.encoding.input_ids.size(), total = std::max(n, static_cast<size_t>(max_length));
  const size_t extra = total - n;
  auto grow = [&](auto& v, auto value) {
    using V = std::decay_t<decltype(v)>;
    V padding(extra, value);
    if (on_right) v.insert(v.end(), padding.begin(), padding.end());
    else v.insert(v.begin(), padding.begin(), padding.end());
  };
  f.attention_mask.assign(n, 1);
  grow(f.attention_mask, 0);
  grow(f.encoding.input_ids, tokenizer.special_ids().pad);
  grow(f.encoding.token_type_ids, 0);
  grow(f.sequence_ids, static_cast<int8_t>(-1));
  grow(f.offsets, std::optional<CharSpan>());
  grow(spans, CharSpan{0, 0});
}

// run_qa.py's search: the tokens whose offsets hold the answer's first and
// last characters, or the CLS position when the window does not hold it all.
void set_positions(QaFeature& f, const QaExample& e, const std::vector<CharSpan>& spans, int8_t context_seq, int32_t cls) {
  f.start_position = f.end_position = cls;
  if (e.answers.empty()) return;
  const int32_t start_char = e.answers[0].answer_start;
  int32_t chars = 0;
  for (size_t i = 0; i < e.answers[0].text.size(); ++i) chars += (static_cast<unsigned char>(e.answers[0].text[i]) & 0xC0) != 0x80;
  const int32_t end_char = start_char + chars;
  size_t first = 0;
  while (f.sequence_ids[first] != context_seq) ++first;
  size_t last = f.sequence_ids.size() - 1;
  while (f.sequence_ids[last] != context_seq) --last;
  if (!(spans[first].start <= start_char && spans[last].end >= end_char)) return;
  while (first < spans.size() && spans[first].start <= start_char) ++first;
  f.start_position = static_cast<int32_t>(first) - 1;
  while (spans[last].end >= end_char) --last;
  f.end_position = static_cast<int32_t>(last) + 1;
}

[[noreturn]] void refuse(const std::string& file, const QaExample& e, const std::string& what, const std::string& fix) {
  throw InputError(make_error({file, 0, 0, {}}, e.place, what, fix));
}

void example_features(const Tokenizer& tokenizer, const QaExample& e, size_t index, const QaFeatureOptions& o,
                      const std::string& file, std::vector<QaFeature>& out) {
  const size_t q_at = e.question.find_first_not_of(" \t\n\r\v\f");
  const TokenizedText question = tokenize_with_offsets(tokenizer, q_at == std::string::npos ? "" : e.question.substr(q_at));
  const TokenizedText context = tokenize_with_offsets(tokenizer, e.context);
  const TokenizedText& first = o.pad_on_right ? question : context;
  const TokenizedText& second = o.pad_on_right ? context : question;
  const TokenizedText& kept = question;
  const long long room = static_cast<long long>(o.max_length) - static_cast<long long>(kept.ids.size()) -
                         static_cast<long long>(added_for_pair(tokenizer));
  const TokenizedText& cut = context;
  if (cut.ids.size() > static_cast<size_t>(std::max(room, 0LL)) && room <= 0)
    refuse(file, e, "question \"" + e.id + "\" takes " + std::to_string(kept.ids.size()) + " tokens, leaving no room in max_length " +
                        std::to_string(o.max_length) + " for the context",
           "raise max_length, or shorten the question");
  if (cut.ids.size() > static_cast<size_t>(room) && o.doc_stride >= room)
    refuse(file, e, "doc_stride " + std::to_string(o.doc_stride) + " is not below the " + std::to_string(room) +
                        " tokens question \"" + e.id + "\" leaves for each window of the context",
           "lower doc_stride below " + std::to_string(room) + ", or raise max_length");
  const int8_t context_seq = o.pad_on_right ? 1 : 0;
  for (const auto& [begin, end] : window_ranges(cut.ids.size(), static_cast<size_t>(std::max(room, 0LL)), static_cast<size_t>(o.doc_stride))) {
    const Placed p = o.pad_on_right ? place_pair(tokenizer, first.ids.size(), begin, end)
                                    : place_pair(tokenizer, end - begin, 0, second.ids.size());
    QaFeature f;
    f.example = index;
    f.encoding = p.encoding;
    std::vector<CharSpan> spans;
    for (size_t k = 0; k < p.sequence.size(); ++k) {
      const int8_t seq = p.sequence[k];
      const TokenizedText* text = seq == 0 ? &first : seq == 1 ? &second : nullptr;
      const size_t token = text ? static_cast<size_t>(p.index[k]) + (seq == context_seq && !o.pad_on_right ? begin : 0) : 0;
      f.encoding.input_ids[k] = text ? text->ids[token] : p.encoding.input_ids[k];
      spans.push_back(text ? text->offsets[token] : CharSpan{0, 0});
      f.sequence_ids.push_back(seq);
      f.offsets.push_back(seq == context_seq ? std::optional<CharSpan>(spans.back()) : std::nullopt);
    }
    pad(f, spans, tokenizer, o.max_length, o.pad_on_right);
    const auto cls_at = std::find(f.encoding.input_ids.begin(), f.encoding.input_ids.end(), tokenizer.special_ids().cls);
    const int32_t cls = cls_at == f.encoding.input_ids.end() ? 0 : static_cast<int32_t>(cls_at - f.encoding.input_ids.begin());
    set_positions(f, e, spans, context_seq, cls);
    out.push_back(std::move(f));
  }
}

}  // namespace qa_feature_parts

std::vector<QaFeature> qa_features(const Tokenizer& tokenizer, const std::vector<QaExample>& examples,
                                   const QaFeatureOptions& options, const std::string& file) {
  using namespace qa_feature_parts;
  std::vector<QaFeature> out;
  for (size_t i = 0; i < examples.size(); ++i) example_features(tokenizer, examples[i], i, options, file, out);
  return out;
}

}  // namespace runner
