// The question answering datasets ("squad_json", "squad_jsonl") as a run reads
// them: the task they announce, and a split tokenized into run_qa.py's windows
// (data/qa_features.h) stored without their padding, each with its answer's
// start and end token as its two targets. The data is the QA smoke recipe's
// (SQuAD v2.0 JSONL built from GLUE text).
#include "catch.h"

#include "data/qa_dataset.h"
#include "data/tokenized_split.h"
#include "shared.h"
#include "tokenizer/wordpiece_loader.h"
#include "util/diagnostic.h"

#include <algorithm>

using namespace runner;

namespace {

nlohmann::json smoke_section(const std::string& version) {
  return {{"dir", test::source_dir() + "/recipes/smoke/qa"}, {"version", version}, {"doc_stride", 16}};
}

}  // namespace

TEST_CASE("question answering dataset: a SQuAD JSONL split becomes its windows without their padding",
          "[data][qa]") {
  auto dataset = make_qa_dataset("squad_jsonl", smoke_section("2.0"));
  const DatasetInfo& info = dataset->info();
  CHECK(info.problem_type == ProblemType::QuestionAnswering);
  CHECK(info.num_labels == 2);
  CHECK(info.metrics == std::vector<std::string>{"exact_match", "f1"});
  CHECK(info.main_metric == "f1");
  REQUIRE(info.qa);
  CHECK(info.qa->version == SquadVersion::V2_0);
  CHECK(info.qa->doc_stride == 16);

  const SplitData split = dataset->load_split("dev");
  CHECK(split.file == test::source_dir() + "/recipes/smoke/qa/dev.jsonl");
  REQUIRE(split.questions.size() == 16);
  const auto tokenizer = load_wordpiece({test::shared_dir() + "/models/bert-base-uncased/tokenizer.json"});
  const TokenizedSplit tokens = tokenize_split(split, *tokenizer, EncodeOptions{48});
  const auto windows = qa_features(*tokenizer, split.questions, {48, 16, true}, split.file);
  REQUIRE(tokens.size() == windows.size());
  CHECK(tokens.size() > split.questions.size());  // contexts longer than 48 tokens take several windows
  CHECK(tokens.target_width == 2);
  for (size_t i = 0; i < windows.size(); ++i) {
    INFO("window " << i);
    const QaFeature& w = windows[i];
    const auto real = std::count(w.attention_mask.begin(), w.attention_mask.end(), 1);
    REQUIRE(tokens.length(i) == real);
    CHECK(std::equal(w.encoding.input_ids.begin(), w.encoding.input_ids.begin() + real,
                     tokens.input_ids.begin() + tokens.offsets[i]));
    CHECK(tokens.targets_of(i)[0] == static_cast<float>(w.start_position));
    CHECK(tokens.targets_of(i)[1] == static_cast<float>(w.end_position));
    CHECK(tokens.example_ids[i] == static_cast<int64_t>(i));
    CHECK(tokens.labels[i] == 0);
  }
}

TEST_CASE("question answering dataset: read as v1.1, a question without an answer is refused with its file",
          "[data][qa]") {
  auto dataset = make_qa_dataset("squad_jsonl", smoke_section("1.1"));
  CHECK_THROWS_AS(dataset->load_split("dev"), InputError);
  CHECK_THROWS_WITH(dataset->load_split("dev"), Catch::Contains("dev.jsonl") && Catch::Contains("no answer"));
}

TEST_CASE("question answering dataset: validate refuses a doc_stride no window has room for", "[data][qa]") {
  nlohmann::json recipe = {{"data", smoke_section("2.0")}};
  recipe["data"]["max_length"] = 48;
  recipe["data"]["train_split"] = "train";
  recipe["data"]["eval_split"] = "dev";
  CHECK(check_question_splits("squad_jsonl", recipe).empty());
  // 48 tokens hold 3 special tokens and at least one question token: 44 context tokens at most.
  recipe["data"]["doc_stride"] = 44;
  const Diagnostics refused = check_question_splits("squad_jsonl", recipe);
  REQUIRE(refused.size() == 1);
  CHECK_THAT(format_all(refused), Catch::Contains("data.doc_stride") && Catch::Contains("max_length = 48"));
}
