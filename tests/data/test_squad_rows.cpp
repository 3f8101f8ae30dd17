// Reading SQuAD v1.1/v2.0 JSON and the JSONL question layout: what each question holds, and
// the refusals that name the file, the place and the fix.
#include "catch.h"

#include "data/squad_rows.h"
#include "shared.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace runner;
using Catch::Contains;

namespace {

std::string squad(const std::string& qas, const std::string& context = "The cat sat on the mat.") {
  return R"({"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": ")" + context + R"(", "qas": [)" + qas + "]}]}]}";
}

}  // namespace

TEST_CASE("SQuAD JSON questions carry their context and character-indexed answers", "[data][squad]") {
  // "Zoë" takes 4 bytes but 3 characters: answer_start counts characters.
  const auto ex = parse_squad_json(
      squad(R"({"id": "a", "question": "Who?", "answers": [{"text": "cat", "answer_start": 8}, {"text": "mat", "answer_start": 23}]})",
            "Zoë's a cat sat on the mat."),
      "dev.json", SquadVersion::V1_1);
  REQUIRE(ex.size() == 1);
  CHECK(ex[0].id == "a");
  CHECK(ex[0].context == "Zoë's a cat sat on the mat.");
  REQUIRE(ex[0].answers.size() == 2);
  CHECK(ex[0].answers[1].text == "mat");
  CHECK(ex[0].place == "data[0].paragraphs[0].qas[0]");
}

TEST_CASE("the golden SQuAD v2.0 file reads with its unanswerable questions", "[data][squad]") {
  const std::string file = test::source_dir() + "/tests/data/golden/qa_squad.json";
  const auto ex = read_squad_json(file, SquadVersion::V2_0);
  std::ifstream in(file);
  const auto doc = nlohmann::json::parse(in);
  const auto& paragraphs = doc["data"][0]["paragraphs"];
  REQUIRE(ex.size() == paragraphs.size());
  size_t unanswerable = 0;
  for (size_t i = 0; i < ex.size(); ++i) {
    CHECK(ex[i].id == paragraphs[i]["qas"][0]["id"].get<std::string>());
    CHECK(ex[i].answers.size() == paragraphs[i]["qas"][0]["answers"].size());
    unanswerable += ex[i].answers.empty();
  }
  CHECK(unanswerable > 0);
  CHECK_THROWS_WITH(read_squad_json(file, SquadVersion::V1_1), Contains("has no answer") && Contains("data.version = \"2.0\""));
}

TEST_CASE("an answer_start that does not point at its text is refused with the right index", "[data][squad]") {
  CHECK_THROWS_WITH(
      parse_squad_json(squad(R"({"id": "a", "question": "Q", "answers": [{"text": "mat", "answer_start": 3}]})"), "dev.json",
                       SquadVersion::V1_1),
      Contains("dev.json") && Contains("data[0].paragraphs[0].qas[0]") && Contains("points at \" ca\"") &&
          Contains("set answer_start to 19"));
  CHECK_THROWS_WITH(
      parse_squad_json(squad(R"({"id": "a", "question": "Q", "answers": [{"text": "dog", "answer_start": 0}]})"), "dev.json",
                       SquadVersion::V1_1),
      Contains("nowhere in the context"));
}

TEST_CASE("a v1.1 question with no answer and duplicate ids are refused", "[data][squad]") {
  CHECK_THROWS_WITH(parse_squad_json(squad(R"({"id": "a", "question": "Q", "answers": []})"), "dev.json", SquadVersion::V1_1),
                    Contains("SQuAD v1.1 question \"a\" has no answer"));
  CHECK(parse_squad_json(squad(R"({"id": "a", "question": "Q", "answers": []})"), "dev.json", SquadVersion::V2_0).size() == 1);
  const std::string twice = R"({"id": "a", "question": "Q", "answers": [{"text": "cat", "answer_start": 4}]},
                               {"id": "a", "question": "R", "answers": [{"text": "mat", "answer_start": 19}]})";
  CHECK_THROWS_WITH(parse_squad_json(squad(twice), "dev.json", SquadVersion::V1_1),
                    Contains("data[0].paragraphs[0].qas[1]") && Contains("used twice (first at data[0].paragraphs[0].qas[0])"));
  CHECK_THROWS_WITH(parse_squad_json(R"({"data": [{"title": "t"}]})", "dev.json", SquadVersion::V1_1),
                    Contains("data[0]") && Contains("no list under \"paragraphs\""));
}

TEST_CASE("JSONL questions read as the datasets layout, refusals name the line", "[data][squad]") {
  const std::string good =
      R"({"id": "a", "question": "Q", "context": "The cat.", "answers": {"text": ["cat"], "answer_start": [4]}})"
      "\n\n"
      R"({"id": "b", "question": "R", "context": "No.", "answers": {"text": [], "answer_start": []}})"
      "\n";
  const auto ex = parse_qa_jsonl(good, "train.jsonl", SquadVersion::V2_0);
  REQUIRE(ex.size() == 2);
  CHECK(ex[0].answers.at(0).answer_start == 4);
  CHECK(ex[1].place == "line 3");
  CHECK_THROWS_WITH(parse_qa_jsonl(good, "train.jsonl", SquadVersion::V1_1), Contains("line 3") && Contains("has no answer"));
  CHECK_THROWS_WITH(parse_qa_jsonl(R"({"id": "a", "question": "Q", "context": "x", "answers": {"text": ["x"]}})", "t.jsonl",
                                   SquadVersion::V2_0),
                    Contains("t.jsonl") && Contains("line 1") && Contains("of one length"));
  CHECK_THROWS_WITH(parse_qa_jsonl(R"({"id": "a", "question": "Q", "context": "abc", "answers": {"text": ["c"], "answer_start": [1]}})",
                                   "t.jsonl", SquadVersion::V2_0),
                    Contains("set answer_start to 2"));
}
