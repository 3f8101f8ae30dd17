#include "train/predict_entities.h"

#include "data/token_label_alignment.h"
#include "model/host_read.h"
#include "model/predict_model.h"
#include "train/metrics_entities.h"
#include "util/diagnostic.h"
#include "util/output_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <istream>
#include <ostream>

namespace runner {
namespace {

const char* const kSentenceLineFormat = "each line must be a JSON object {\"text\": \"...\"} or {\"tokens\": [\"...\", ...]}";

struct PendingSentence {
  nlohmann::json line;  // the input object, echoed with the prediction
  std::string text;     // a "text" line's text
  std::vector<TextWord> text_words;  // its words; empty for a "tokens" line
  std::vector<std::string> words;
  WordEncoding encoding;
};

bool is_word_break(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::vector<std::string> line_words(const nlohmann::json& line, PendingSentence& s, const std::string& input,
                                    long long line_no) {
  auto fail = [&](const std::string& msg) { refuse_input_line(input, line_no, msg, kSentenceLineFormat); };
  const char* text_key = line.contains("text") ? "text" : line.contains("text_a") ? "text_a" : nullptr;
  std::vector<std::string> words;
  if (text_key) {
    if (!line[text_key].is_string()) fail(fmt::format("\"{}\" is not a string", text_key));
    s.text = line[text_key].get<std::string>();
    s.text_words = split_text_words(s.text);
    for (const TextWord& w : s.text_words) words.push_back(w.text);
    return words;
  }
  if (!line.contains("tokens")) fail("no \"text\" string and no \"tokens\" list");
  if (!line["tokens"].is_array()) fail("\"tokens\" is not a list");
  for (size_t k = 0; k < line["tokens"].size(); ++k) {
    if (!line["tokens"][k].is_string()) fail(fmt::format("tokens[{}] is not a string", k));
    words.push_back(line["tokens"][k].get<std::string>());
  }
  return words;
}

PendingSentence parse_sentence(const std::string& text, const PredictCommandOptions& o, long long line_no,
                               const Tokenizer& tokenizer, const AlignOptions& align) {
  PendingSentence s;
  s.line = input_object(text, o.input_name, line_no, kSentenceLineFormat);
  s.words = line_words(s.line, s, o.input_name, line_no);
  s.encoding = encode_words(tokenizer, s.words, align);
  return s;
}

// One entity as the output line writes it.
nlohmann::json entity_json(const PredictedEntity& e, const PendingSentence& s, const std::vector<double>& scores) {
  double sum = 0;
  for (size_t w = e.first; w <= e.last; ++w) sum += scores[w];
  nlohmann::json j = {{"type", e.type},
                      {"words", {e.first, e.last}},
                      {"score", sum / static_cast<double>(e.last - e.first + 1)}};
  if (s.text_words.empty()) {
    std::string joined;
    for (size_t w = e.first; w <= e.last; ++w) joined += (w > e.first ? " " : "") + s.words[w];
    j["text"] = joined;
    return j;
  }
  const TextWord &first = s.text_words[e.first], &last = s.text_words[e.last];
  j["text"] = s.text.substr(first.byte_start, last.byte_end - first.byte_start);
  j["start"] = first.chars.start;
  j["end"] = last.chars.end;
  return j;
}

// The sentence's tags and entities from its row of logits, [length, labels].
void describe_sentence(const TaskModel& model, const PendingSentence& s, const torch::Tensor& probabilities,
                       nlohmann::json& line) {
  auto best = probabilities.max(-1);
  const torch::Tensor values = std::get<0>(best).contiguous(), labels = std::get<1>(best).contiguous();
  std::vector<std::string> tags(s.words.size());
  std::vector<double> scores(s.words.size(), 0.0);
  for (size_t p = 0; p < s.encoding.word_at.size(); ++p) {
    const int32_t w = s.encoding.word_at[p];
    if (w < 0) continue;
    tags[static_cast<size_t>(w)] = model.label_name(labels.data_ptr<int64_t>()[p]);
    scores[static_cast<size_t>(w)] = values.data_ptr<float>()[p];
  }
  nlohmann::json tag_list = nlohmann::json::array(), entities = nlohmann::json::array();
  for (const std::string& t : tags) tag_list.push_back(t.empty() ? nlohmann::json() : nlohmann::json(t));
  for (const PredictedEntity& e : sentence_entities(tags)) entities.push_back(entity_json(e, s, scores));
  line["tags"] = tag_list;
  line["entities"] = entities;
}

void predict_sentences(TaskModel& model, std::vector<PendingSentence>& batch, int64_t pad_id, std::ostream& out) {
  if (batch.empty()) return;
  std::vector<const Encoding*> rows;
  for (const PendingSentence& s : batch) rows.push_back(&s.encoding.encoding);
  const torch::Tensor logits = read_to_host(model.forward(pad_encodings(rows, pad_id)).logits.to(torch::kFloat32));
  const torch::Tensor probabilities = logits.softmax(-1);
  for (size_t i = 0; i < batch.size(); ++i) {
    nlohmann::json line = batch[i].line;
    describe_sentence(model, batch[i], probabilities[static_cast<int64_t>(i)], line);
    out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
  batch.clear();
  // Each batch goes out at once: a reader that went away (`| head`) stops the work here.
  require_written(out, "standard output");
}

}  // namespace

std::vector<TextWord> split_text_words(std::string_view text) {
  std::vector<TextWord> words;
  int32_t code_points = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool starts_character = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (!is_word_break(text[i]) && (i == 0 || is_word_break(text[i - 1]))) {
      words.push_back({});
      words.back().chars.start = code_points;
      words.back().byte_start = i;
    }
    if (starts_character) ++code_points;
    if (!is_word_break(text[i]) && (i + 1 == text.size() || is_word_break(text[i + 1]))) {
      TextWord& w = words.back();
      w.byte_end = i + 1;
      w.chars.end = code_points;
      w.text = std::string(text.substr(w.byte_start, w.byte_end - w.byte_start));
    }
  }
  return words;
}

std::vector<PredictedEntity> sentence_entities(const std::vector<std::string>& tags) {
  std::vector<std::string> read = tags;
  for (std::string& t : read) t = t.empty() ? "O" : t;
  std::vector<PredictedEntity> out;
  // Lenient entities end at the sentence's separator position at the latest.
  for (const Entity& e : extract_entities({read}, EntityOptions{}))
    if (e.first < tags.size()) out.push_back({e.type, e.first, std::min(e.last, tags.size() - 1)});
  return out;
}

int run_entity_predict(const PredictCommandOptions& o, std::istream& in, std::ostream& out, std::ostream& err) {
  try {
    Predictor predictor = load_predictor(o, err);
    TaskModel& model = *predictor.loaded.model;
    torch::NoGradGuard no_grad;
    AlignOptions align;
    align.max_length = o.max_length;
    align.add_prefix_space = o.add_prefix_space;
    std::vector<PendingSentence> batch;
    long long cut = 0;
    for_each_input_batch(
        in, o.batch_size,
        [&](const std::string& text, long long line_no) {
          batch.push_back(parse_sentence(text, o, line_no, *predictor.tokenizer, align));
          cut += batch.back().encoding.truncated ? 1 : 0;
        },
        [&] { predict_sentences(model, batch, predictor.pad_id, out); });
    if (cut > 0)
      err << fmt::format("warning: {} input lines are longer than --max-length {}: their last words have the tag "
                         "null\n  hint: raise --max-length (up to the model's max_position_embeddings), or split "
                         "the lines\n",
                         cut, o.max_length);
    return 0;
  } catch (const InputError& e) {
    err << e.diagnostic().format() << "\n";
    return 2;
  }
}

}  // namespace runner
