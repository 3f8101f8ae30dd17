// A run's final/ carries a manifest.json (each file's size and sha256), as its
// checkpoints do: evaluate, predict and export refuse a final/ whose weights
// changed after the run wrote them, naming the file, and take the checkpoints
// as before.
#include "catch.h"

#include "run_files.h"
#include "shared.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

using namespace runner;

TEST_CASE("a bit flipped in final/model.safetensors is refused by evaluate, predict and export", "[cli]") {
  const std::string dir = test::tmp_dir("final-manifest");
  auto r = test::runner_cmd("", test::smoke_recipe() + test::isolated_run_sets(dir) + " --set train.max_steps=4");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  const std::string run = test::only_run_dir(dir);
  auto manifest = nlohmann::json::parse(test::read_text(run + "/final/manifest.json"));
  CHECK(manifest["files"].contains("model.safetensors"));
  CHECK(manifest["files"].contains("config.json"));
  std::ofstream(dir + "/in.jsonl") << "{\"text_a\": \"a fine day\", \"text_b\": \"a good day\"}\n";
  const std::string predict = "predict --model " + run + " --input " + dir + "/in.jsonl";
  CHECK(test::runner_cmd("", "evaluate " + run).exit_code == 0);
  CHECK(test::runner_cmd("", predict).exit_code == 0);

  // One bit of the last byte, well inside the weights: the size stays, the sha256 does not.
  const std::string weights = run + "/final/model.safetensors";
  {
    std::fstream f(weights, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-1, std::ios::end);
    char c = 0;
    f.get(c);
    f.seekp(-1, std::ios::end);
    f.put(static_cast<char>(c ^ 1));
  }
  for (const std::string& args : {"evaluate " + run, "evaluate " + run + "/final", predict,
                                  "predict --model " + run + "/final --input " + dir + "/in.jsonl",
                                  "export " + run + " --checkpoint final --to " + dir + "/exported"}) {
    auto refused = test::runner_cmd("", args);
    INFO(args << "\n" << refused.out);
    CHECK(refused.exit_code == 2);
    CHECK(refused.out.find(run + "/final: error: the final model fails its sha256 manifest: model.safetensors: "
                                 "sha256") != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(dir + "/exported"));
  // The checkpoints are not final/: still scored.
  CHECK(test::runner_cmd("", "evaluate " + run + " --checkpoint 4").exit_code == 0);
}
