// What a run refuses before its first step, validate refuses too, with the
// same message: each case below is run both ways. The run's error lines must
// each appear in validate's output (the places may differ in form, the text
// may not), and both exit 2.
#include "catch.h"

#include "glue_files.h"
#include "shared.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using runner::test::CommandResult;
using runner::test::run_command;
using runner::test::runner_exe;

namespace {

struct RefusedCase {
  std::string name;
  std::string sets;      // --set arguments on the smoke recipe
  std::string message;   // a piece of the message both must give
};

// bert-base-uncased's tokenizer.json run as a pipeline (an added token beside
// BERT's five specials takes it off the WordPiece path), changed by `change`.
std::string pipeline_tokenizer(const std::string& name, const std::function<void(nlohmann::json&)>& change) {
  std::ifstream in(runner::test::shared_dir() + "/models/bert-base-uncased/tokenizer.json");
  nlohmann::json j = nlohmann::json::parse(in);
  j["added_tokens"].push_back({{"id", 1}, {"content", "[unused0]"}, {"single_word", false}, {"lstrip", false},
                               {"rstrip", false}, {"normalized", false}, {"special", true}});
  change(j);
  const std::string dir = runner::test::tmp_dir(name);
  std::ofstream(dir + "/tokenizer.json") << j.dump();
  return dir;
}

// The text after "error: " of each error line: the message without its place.
std::vector<std::string> error_messages(const std::string& out) {
  std::vector<std::string> found;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find("error: ");
    if (at != std::string::npos) found.push_back(line.substr(at + 7));
  }
  return found;
}

}  // namespace

TEST_CASE("validate refuses with the run's own message what the run refuses before step 0", "[cli]") {
  const std::string out = runner::test::tmp_dir("validate_as_run");
  std::vector<RefusedCase> cases;
  // A pair's second text given type id 2: MRPC's pairs reach row 2 of BERT's two-row table.
  const std::string type_two = pipeline_tokenizer("validate_as_run_type_id", [](nlohmann::json& j) {
    j["post_processor"] = {
        {"type", "TemplateProcessing"},
        {"single", {{{"SpecialToken", {{"id", "[CLS]"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                    {{"SpecialToken", {{"id", "[SEP]"}, {"type_id", 0}}}}}},
        {"pair", {{{"SpecialToken", {{"id", "[CLS]"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                  {{"SpecialToken", {{"id", "[SEP]"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "B"}, {"type_id", 2}}}},
                  {{"SpecialToken", {{"id", "[SEP]"}, {"type_id", 2}}}}}},
        {"special_tokens", {{"[CLS]", {{"id", "[CLS]"}, {"ids", {101}}, {"tokens", {"[CLS]"}}}},
                            {"[SEP]", {{"id", "[SEP]"}, {"ids", {102}}, {"tokens", {"[SEP]"}}}}}}};
  });
  cases.push_back({"type id past the table", "tokenizer.path=" + type_two,
                   "the tokenizer gives token type id 2, but the model's token type table has 2 rows"});
  const std::string metaspace = pipeline_tokenizer("validate_as_run_metaspace", [](nlohmann::json& j) {
    j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", ""}, {"prepend_scheme", "always"}, {"split", true}};
  });
  cases.push_back({"empty Metaspace", "tokenizer.path=" + metaspace, "replacement: expected one character"});
  // A GLUE folder that exists is not downloaded again: MNLI's mismatched dev set must be in it.
  const std::string mnli = runner::test::write_glue_task(out + "/glue", "mnli");
  fs::remove(mnli + "/dev_mismatched.tsv");
  cases.push_back({"MNLI without dev_mismatched", "data.dataset=glue/mnli --set data.dir=" + mnli,
                   "dev_mismatched.tsv is not in"});
  for (const RefusedCase& c : cases) {
    INFO(c.name);
    const std::string sets = " --set " + c.sets + " --set run.output_dir=" + out + "/runs";
    CommandResult run = run_command(runner_exe() + " run " + runner::test::smoke_recipe() + sets + " 2>&1");
    CommandResult validate = run_command(runner_exe() + " validate " + runner::test::smoke_recipe() + sets + " 2>&1");
    INFO("run:\n" << run.out << "\nvalidate:\n" << validate.out);
    CHECK(run.exit_code == 2);
    CHECK(validate.exit_code == 2);
    CHECK_THAT(run.out, Catch::Contains(c.message));
    const std::vector<std::string> messages = error_messages(run.out);
    CHECK(!messages.empty());
    for (const std::string& m : messages) CHECK_THAT(validate.out, Catch::Contains(m));
  }
}
