#include "data/squad_rows.h"

#include "data/text_rows.h"
#include "tokenizer/unicode_text.h"
#include "util/diagnostic.h"
#include "util/json_input.h"

#include <unordered_map>

namespace runner {
namespace squad_rows_parts {

[[noreturn]] void refuse(const std::string& file, const std::string& place, const std::string& what,
                         const std::string& fix) {
  throw InputError(make_error({file, 0, 0, {}}, place, what, fix));
}

std::string string_at(const nlohmann::json& obj, const char* key, const std::string& file, const std::string& place) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string())
    refuse(file, place, std::string("no string under \"") + key + "\"",
           std::string("give every question its \"") + key + "\" as a JSON string");
  return obj[key].get<std::string>();
}

// The code points of context[start : start + length of text], as Python slices.
std::string slice(std::string_view context, int64_t start, size_t count) {
  size_t i = 0;
  for (int64_t c = 0; c < start && i < context.size(); ++c) unicode::next_code_point(context, i);
  const size_t from = i;
  for (size_t c = 0; c < count && i < context.size(); ++c) unicode::next_code_point(context, i);
  return std::string(context.substr(from, i - from));
}

size_t char_count(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++n) unicode::next_code_point(s, i);
  return n;
}

// Where `text` does start, in characters, or -1.
int64_t char_index_of(std::string_view context, std::string_view text) {
  const size_t at = context.find(text);
  return at == std::string_view::npos ? -1 : static_cast<int64_t>(char_count(context.substr(0, at)));
}

void check_answer(const QaExample& e, const QaAnswerSpan& a, const std::string& file) {
  if (a.answer_start >= 0 && slice(e.context, a.answer_start, char_count(a.text)) == a.text) return;
  const int64_t found = char_index_of(e.context, a.text);
  refuse(file, e.place,
         "answer_start " + std::to_string(a.answer_start) + " of question \"" + e.id + "\" points at \"" +
             slice(e.context, std::max<int64_t>(0, a.answer_start), char_count(a.text)) + "\", not at its text \"" + a.text + "\"",
         found >= 0 ? "set answer_start to " + std::to_string(found) + ", where the text is (answer_start counts characters, not bytes)"
                    : "the text is nowhere in the context: copy the answer from the context");
}

void check_example(const QaExample& e, SquadVersion version, const std::string& file) {
  if (e.id.empty()) refuse(file, e.place, "the question has an empty id", "give every question a unique id");
  if (version == SquadVersion::V1_1 && e.answers.empty())
    refuse(file, e.place, "SQuAD v1.1 question \"" + e.id + "\" has no answer",
           "give it its answer, or read the file as SQuAD v2.0 (data.version = \"2.0\"), where questions may have none");
  for (const QaAnswerSpan& a : e.answers) check_answer(e, a, file);
}

void check_unique_ids(const std::vector<QaExample>& examples, const std::string& file) {
  std::unordered_map<std::string, const QaExample*> seen;
  for (const QaExample& e : examples) {
    auto [it, fresh] = seen.emplace(e.id, &e);
    if (!fresh)
      refuse(file, e.place, "question id \"" + e.id + "\" is used twice (first at " + it->second->place + ")",
             "give every question its own id");
  }
}

int32_t start_value(const nlohmann::json& v, const std::string& file, const std::string& place) {
  if (!v.is_number_integer())
    refuse(file, place, "answer_start " + v.dump() + " is not a whole number", "write answer_start as the answer's character index");
  return v.get<int32_t>();
}

QaExample squad_question(const nlohmann::json& qa, const std::string& context, const std::string& place,
                         const std::string& file) {
  QaExample e{string_at(qa, "id", file, place), string_at(qa, "question", file, place), context, {}, place};
  if (!qa.contains("answers") || !qa["answers"].is_array())
    refuse(file, place, "no list under \"answers\"", "give every question \"answers\": [{\"text\", \"answer_start\"}] ([] for none)");
  for (size_t k = 0; k < qa["answers"].size(); ++k) {
    const std::string at = place + ".answers[" + std::to_string(k) + "]";
    const nlohmann::json& a = qa["answers"][k];
    if (!a.is_object() || !a.contains("answer_start"))
      refuse(file, at, "no \"answer_start\"", "give every answer its \"text\" and \"answer_start\"");
    e.answers.push_back({string_at(a, "text", file, at), start_value(a["answer_start"], file, at)});
  }
  return e;
}

const nlohmann::json& array_at(const nlohmann::json& obj, const char* key, const std::string& file, const std::string& place) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_array())
    refuse(file, place, std::string("no list under \"") + key + "\"",
           "write the file in SQuAD's layout: {\"data\": [{\"paragraphs\": [{\"context\", \"qas\": [...]}]}]}");
  return obj[key];
}

QaExample jsonl_question(const nlohmann::json& row, const std::string& place, const std::string& file) {
  QaExample e{string_at(row, "id", file, place), string_at(row, "question", file, place),
              string_at(row, "context", file, place), {}, place};
  const auto hint = "write \"answers\": {\"text\": [...], \"answer_start\": [...]}, two lists of one length";
  if (!row.contains("answers") || !row["answers"].is_object()) refuse(file, place, "no object under \"answers\"", hint);
  const nlohmann::json& a = row["answers"];
  if (!a.contains("text") || !a["text"].is_array() || !a.contains("answer_start") || !a["answer_start"].is_array() ||
      a["text"].size() != a["answer_start"].size())
    refuse(file, place, "\"answers\" needs the lists \"text\" and \"answer_start\" of one length", hint);
  for (size_t k = 0; k < a["text"].size(); ++k) {
    if (!a["text"][k].is_string()) refuse(file, place, "answer text " + a["text"][k].dump() + " is not a string", hint);
    e.answers.push_back({a["text"][k].get<std::string>(), start_value(a["answer_start"][k], file, place)});
  }
  return e;
}

}  // namespace squad_rows_parts

std::vector<QaExample> parse_squad_json(std::string_view text, const std::string& file, SquadVersion version) {
  using namespace squad_rows_parts;
  const nlohmann::json doc = parse_json(text, {file, 1, "write the file as SQuAD JSON"});
  std::vector<QaExample> examples;
  const auto& data = array_at(doc, "data", file, "");
  for (size_t i = 0; i < data.size(); ++i) {
    const std::string article = "data[" + std::to_string(i) + "]";
    const auto& paragraphs = array_at(data[i], "paragraphs", file, article);
    for (size_t j = 0; j < paragraphs.size(); ++j) {
      const std::string paragraph = article + ".paragraphs[" + std::to_string(j) + "]";
      const std::string context = string_at(paragraphs[j], "context", file, paragraph);
      const auto& qas = array_at(paragraphs[j], "qas", file, paragraph);
      for (size_t k = 0; k < qas.size(); ++k)
        examples.push_back(squad_question(qas[k], context, paragraph + ".qas[" + std::to_string(k) + "]", file));
    }
  }
  for (const QaExample& e : examples) check_example(e, version, file);
  check_unique_ids(examples, file);
  return examples;
}

std::vector<QaExample> parse_qa_jsonl(std::string_view text, const std::string& file, SquadVersion version) {
  using namespace squad_rows_parts;
  std::vector<QaExample> examples;
  for (const Line& l : split_lines(text)) {
    if (l.text.find_first_not_of(" \t") == std::string_view::npos) continue;
    const std::string place = "line " + std::to_string(l.number);
    if (std::string why = utf8_problem(l.text); !why.empty()) refuse(file, place, why, "save the file as UTF-8");
    const nlohmann::json row = parse_json(l.text, {file, l.number, "write one JSON object a line"});
    if (!row.is_object()) refuse(file, place, "the line is not a JSON object", "write one JSON object a line");
    examples.push_back(jsonl_question(row, place, file));
    check_example(examples.back(), version, file);
  }
  check_unique_ids(examples, file);
  return examples;
}

std::vector<QaExample> read_squad_json(const std::string& path, SquadVersion version) {
  return parse_squad_json(read_text_file(path), path, version);
}

std::vector<QaExample> read_qa_jsonl(const std::string& path, SquadVersion version) {
  return parse_qa_jsonl(read_text_file(path), path, version);
}

}  // namespace runner
