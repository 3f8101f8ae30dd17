// Reading extractive question answering data: SQuAD v1.1 / v2.0 JSON
// ({"data": [{"paragraphs": [{"context", "qas": [{"id", "question",
// "answers": [{"text", "answer_start"}]}]}]}]}) and JSONL, one question a
// line: {"id", "question", "context", "answers": {"text": [...],
// "answer_start": [...]}} (the Hugging Face datasets layout).
//
// answer_start counts characters (code points), as Python indexes the
// context. Every refusal is an InputError naming the file, the place (a JSON
// path or a line) and the fix: an answer_start that does not point at its
// text, a v1.1 question with no answer, a duplicate id, a missing field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace runner {

enum class SquadVersion { V1_1, V2_0 };

struct QaAnswerSpan {
  std::string text;
  int32_t answer_start = 0;  // in characters of the context
};

struct QaExample {
  std::string id;
  std::string question;
  std::string context;
  std::vector<QaAnswerSpan> answers;  // empty: unanswerable (v2.0 only)
  std::string place;                  // "data[0].paragraphs[2].qas[1]" or "line 7"
};

std::vector<QaExample> read_squad_json(const std::string& path, SquadVersion version);
std::vector<QaExample> parse_squad_json(std::string_view text, const std::string& file, SquadVersion version);

std::vector<QaExample> read_qa_jsonl(const std::string& path, SquadVersion version);
std::vector<QaExample> parse_qa_jsonl(std::string_view text, const std::string& file, SquadVersion version);

}  // namespace runner
