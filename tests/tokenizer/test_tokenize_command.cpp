// The `runner tokenize` body: golden edge cases in, the golden ids out.
#include "catch.h"

#include "shared.h"
#include "tokenizer/tokenize_command.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace runner;

TEST_CASE("tokenize command adds the golden ids to every JSONL line", "[tokenizer]") {
  std::ifstream golden(test::shared_dir() + "/golden/tokenization/edge_cases.jsonl");
  std::vector<nlohmann::json> expected;
  std::string line;
  while (std::getline(golden, line)) {
    auto j = nlohmann::json::parse(line);
    if (j["max_length"] == 128) expected.push_back(j);  // the command runs with one max_length
  }
  REQUIRE(expected.size() > 60);
  std::stringstream in, out, err;
  for (const auto& j : expected) {
    nlohmann::json q = {{"text_a", j["text_a"]}, {"text_b", j["text_b"]}, {"id", j["id"]}};
    in << q.dump() << "\n";
  }
  TokenizeCommandOptions o;
  o.tokenizer = test::shared_dir() + "/models/bert-base-uncased";
  o.max_length = 128;
  REQUIRE(run_tokenize_command(o, in, out, err) == 0);
  size_t n = 0, mismatches = 0;
  while (std::getline(out, line)) {
    auto got = nlohmann::json::parse(line);
    const auto& want = expected.at(n++);
    CHECK(got["id"] == want["id"]);  // input keys are kept
    mismatches += got["input_ids"] != want["input_ids"] || got["token_type_ids"] != want["token_type_ids"];
  }
  CHECK(n == expected.size());
  CHECK(mismatches == 0);
}

TEST_CASE("tokenize command names the bad line", "[tokenizer]") {
  std::stringstream in("{\"text_a\": \"fine\"}\n{\"text_b\": \"no text_a\"}\n"), out, err;
  TokenizeCommandOptions o;
  o.tokenizer = test::shared_dir() + "/models/bert-base-uncased";
  CHECK(run_tokenize_command(o, in, out, err) == 2);
  CHECK_THAT(err.str(), Catch::Contains("<stdin>:2"));
  CHECK(out.str() == "{\"text_a\":\"fine\",\"input_ids\":[101,2986,102],\"token_type_ids\":[0,0,0]}\n");
}
