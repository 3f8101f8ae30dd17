// A pretrained model's config.json problem_type is the dataset's when the
// recipe names none (Transformers' model reads config.problem_type before its
// num_labels rule); a recipe's own problem_type that names another is refused
// by validate, naming both.
#include "catch.h"

#include "shared.h"
#include "task_files.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using runner::test::run_command;

namespace {

// tiny_bert's weights with `problem_type` written into its config.json.
std::string model_with_problem_type(const std::string& dir, const std::string& problem_type) {
  std::string model = dir + "/model";
  fs::create_directories(model);
  fs::copy_file(runner::test::shared_dir() + "/golden/tiny_bert/model.safetensors", model + "/model.safetensors");
  std::ifstream in(runner::test::shared_dir() + "/golden/tiny_bert/config.json");
  nlohmann::json config = nlohmann::json::parse(in);
  config["problem_type"] = problem_type;
  std::ofstream(model + "/config.json") << config.dump(2);
  return model;
}

std::string recipe_of(const std::string& dir, const std::string& model, const std::string& extra_data) {
  runner::test::write_aspects(dir + "/data");
  std::ofstream(dir + "/r.toml") << "[data]\ndataset = \"jsonl\"\ndir = \"" << dir << "/data\"\n"
                                 << "columns = { text_a = \"text\", label = \"labels\" }\n"
                                 << "labels = { food = 0, price = 1, staff = 2 }\n"
                                 << extra_data << "[model]\npretrained = \"" << model << "\"\n";
  return dir + "/r.toml";
}

}  // namespace

TEST_CASE("a pretrained config's problem_type is the dataset's, with its metrics", "[recipe]") {
  std::string dir = runner::test::tmp_dir("pretrained_problem_type");
  std::string model = model_with_problem_type(dir, "multi_label_classification");
  auto r = run_command(runner::test::runner_exe() + " print-config --format json " + recipe_of(dir, model, ""));
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  nlohmann::json data = nlohmann::json::parse(r.out.substr(r.out.find('{'))).at("data");
  CHECK(data.at("problem_type") == "multi_label_classification");
  CHECK(data.at("metrics") == nlohmann::json{"micro_f1", "macro_f1", "subset_accuracy"});
  CHECK(run_command(runner::test::runner_exe() + " validate " + dir + "/r.toml").exit_code == 0);
}

TEST_CASE("a recipe's problem_type that differs from the pretrained config's is refused naming both", "[recipe]") {
  std::string dir = runner::test::tmp_dir("pretrained_problem_type_conflict");
  std::string model = model_with_problem_type(dir, "multi_label_classification");
  auto r = run_command(runner::test::runner_exe() + " validate " +
                       recipe_of(dir, model, "problem_type = \"single_label_classification\"\n"));
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("data.problem_type = \"single_label_classification\"") &&
                        Catch::Contains("problem_type = \"multi_label_classification\"") &&
                        Catch::Contains("config.json"));
  // The same type as the config's is the recipe's to state.
  auto same = run_command(runner::test::runner_exe() + " validate " +
                          recipe_of(dir, model, "problem_type = \"multi_label_classification\"\n"));
  INFO(same.out);
  CHECK(same.exit_code == 0);
}
