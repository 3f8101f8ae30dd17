// Checkpoints: atomic writes, verification against the manifest, keep_last, and
// the training state round trip.
#include "train/checkpoint_io.h"
#include "util/synced_file.h"
#include "run/run_data.h"
#include "train/checkpointer.h"
#include "train/training_state.h"
#include "util/diagnostic.h"
#include "util/sha256.h"

#include "shared.h"

#include "catch.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <thread>

using namespace runner;
namespace fs = std::filesystem;

namespace {

TrainingState sample_state(long long step) {
  TrainingState s;
  s.model["encoder.weight"] = torch::randn({3, 4});
  s.model["encoder.bias"] = torch::arange(3, torch::kFloat64);
  s.optimizer["encoder.weight/step"] = torch::full({}, static_cast<float>(step));
  s.optimizer["encoder.weight/exp_avg"] = torch::randn({3, 4});
  s.global_step = step;
  s.scheduler_step = step - 1;
  s.epoch = 2;
  s.batch_in_epoch = 17;
  s.samples_seen = 1234;
  s.loss_scaler = {512.0, 7, 3};
  s.sampler = {{"seed", 42}, {"epoch", 2}};
  s.best = {true, 0.8125, 40, "step-00000040", 1};
  s.world_size = 1;
  capture_rng(s);
  return s;
}

// A verified checkpoint of sample_state(step) whose state.json has `key` set to `value`
// (the manifest hashes the edited file, so only the state's own checks can refuse it).
std::string checkpoint_with_state_edit(const std::string& dir, long long step, const std::string& key,
                                       const nlohmann::json& value) {
  auto files = encode_training_state(sample_state(step));
  for (auto& f : files)
    if (f.name == "state.json") {
      auto j = nlohmann::json::parse(f.bytes);
      j[key] = value;
      f.bytes = j.dump();
    }
  return write_checkpoint(dir, checkpoint_name(step), files);
}

void flip_byte(const std::string& path, size_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

}  // namespace

TEST_CASE("sha256 of known strings", "[train][checkpoint]") {
  // FIPS 180-2 test vector and the empty string.
  CHECK(runner::digest::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(runner::digest::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("training state round-trips bit-exactly through a checkpoint", "[train][checkpoint]") {
  std::string dir = runner::test::tmp_dir("ckpt_roundtrip");
  TrainingState s = sample_state(50);
  std::string path = write_checkpoint(dir, checkpoint_name(50), encode_training_state(s));
  CHECK(fs::path(path).filename() == "step-00000050");
  CHECK(verify_checkpoint(path).empty());
  TrainingState r = load_training_state(path);
  CHECK(torch::equal(r.model.at("encoder.weight"), s.model.at("encoder.weight")));
  CHECK(r.model.at("encoder.bias").scalar_type() == torch::kFloat64);
  CHECK(torch::equal(r.optimizer.at("encoder.weight/exp_avg"), s.optimizer.at("encoder.weight/exp_avg")));
  CHECK(r.global_step == 50);
  CHECK(r.scheduler_step == 49);
  CHECK(r.batch_in_epoch == 17);
  CHECK(r.loss_scaler.scale == 512.0);
  CHECK(r.loss_scaler.skipped_steps == 3);
  CHECK(r.sampler == s.sampler);
  CHECK(r.best.checkpoint == "step-00000040");
  CHECK(r.best.evals_without_improvement == 1);

  // The RNG stream continues identically after a restore.
  torch::Tensor expected = torch::randn({5});
  restore_rng(r);
  CHECK(torch::equal(torch::randn({5}), expected));
}

TEST_CASE("a failed checkpoint write leaves the previous checkpoint valid", "[train][checkpoint]") {
  std::string dir = runner::test::tmp_dir("ckpt_write_failure");
  std::string first = write_checkpoint(dir, checkpoint_name(10), encode_training_state(sample_state(10)));
  auto fail_on_optimizer = [](const std::string&, const std::string& file) {
    if (file == "optimizer.safetensors") throw std::runtime_error("injected: No space left on device");
  };
  CHECK_THROWS_WITH(write_checkpoint(dir, checkpoint_name(20),
                                     encode_training_state(sample_state(20)), fail_on_optimizer),
                    Catch::Contains("No space left"));
  CHECK_FALSE(fs::exists(dir + "/step-00000020"));
  for (const auto& e : fs::directory_iterator(dir))
    CHECK(e.path().filename().string().rfind(".tmp-", 0) != 0);
  auto newest = newest_valid_checkpoint(dir, nullptr);
  REQUIRE(newest);
  CHECK(*newest == first);
  CHECK(load_training_state(*newest).global_step == 10);
}

TEST_CASE("a corrupted checkpoint is detected and skipped with a warning", "[train][checkpoint]") {
  std::string dir = runner::test::tmp_dir("ckpt_corrupt");
  std::string first = write_checkpoint(dir, checkpoint_name(10), encode_training_state(sample_state(10)));
  std::string second = write_checkpoint(dir, checkpoint_name(20), encode_training_state(sample_state(20)));
  flip_byte(second + "/model.safetensors", 100);
  CHECK_THAT(verify_checkpoint(second), Catch::Contains("model.safetensors: sha256"));
  std::vector<std::string> warnings;
  auto newest = newest_valid_checkpoint(dir, [&](const std::string& w) { warnings.push_back(w); });
  REQUIRE(newest);
  CHECK(*newest == first);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("step-00000020") && Catch::Contains("model.safetensors"));

  fs::remove(first + "/rng.safetensors");
  CHECK_THAT(verify_checkpoint(first), Catch::Contains("rng.safetensors: missing"));
  CHECK_FALSE(newest_valid_checkpoint(dir, nullptr));
}

TEST_CASE("an interrupted write leaves only a temporary directory that is ignored and cleaned",
          "[train][checkpoint]") {
  std::string dir = runner::test::tmp_dir("ckpt_interrupted");
  std::string first = write_checkpoint(dir, checkpoint_name(5), encode_training_state(sample_state(5)));
  fs::create_directories(dir + "/.tmp-step-00000009");  // what a SIGKILL mid-write leaves
  std::ofstream(dir + "/.tmp-step-00000009/model.safetensors") << "partial";
  CHECK(list_checkpoints(dir).size() == 1);
  CHECK(*newest_valid_checkpoint(dir, nullptr) == first);
  write_checkpoint(dir, checkpoint_name(10), encode_training_state(sample_state(10)));
  CHECK_FALSE(fs::exists(dir + "/.tmp-step-00000009"));
}

TEST_CASE("keep_last never deletes the best or the newest valid checkpoint", "[train][checkpoint]") {
  std::string dir = runner::test::tmp_dir("ckpt_keep_last");
  std::vector<std::string> paths;
  for (long long step : {10, 20, 30, 40, 50})
    paths.push_back(write_checkpoint(dir, checkpoint_name(step), encode_training_state(sample_state(step))));
  prune_checkpoints(dir, 2, paths[0]);  // step 10 is the best
  auto left = list_checkpoints(dir);
  REQUIRE(left.size() == 3);
  CHECK(left[0] == paths[0]);
  CHECK(left[1] == paths[3]);
  CHECK(left[2] == paths[4]);

  flip_byte(paths[4] + "/state.json", 3);  // the newest is now invalid
  prune_checkpoints(dir, 1, "");
  left = list_checkpoints(dir);
  REQUIRE(left.size() == 2);  // the newest by count and the newest valid one
  CHECK(left[0] == paths[3]);
  CHECK(left[1] == paths[4]);
}

TEST_CASE("a training state of another format version is refused", "[train][checkpoint]") {
  std::string dir = runner::test::tmp_dir("ckpt_version");
  std::string path = checkpoint_with_state_edit(dir, 1, "format_version", 99);
  CHECK_THROWS_WITH(load_training_state(path),
                    Catch::Contains("format 99") && Catch::Contains("state.json"));
}

TEST_CASE("a training state with a field of the wrong type is refused naming the file, not the JSON library", "[train][checkpoint]") {
  std::string dir = runner::test::tmp_dir("ckpt_types");
  const std::vector<std::pair<std::string, nlohmann::json>> damaged = {
      {"format_version", "1"}, {"global_step", "six"}, {"best", 3}, {"loss_scaler", nullptr}};
  for (const auto& [key, bad] : damaged) {
    INFO(key);
    std::string path = checkpoint_with_state_edit(dir + "/" + key, 1, key, bad);
    try {
      load_training_state(path);
      FAIL("the damaged state was loaded");
    } catch (const InputError& e) {
      std::string message = e.diagnostic().format();
      INFO(message);
      CHECK(message.find(path + "/state.json") != std::string::npos);
      CHECK(message.find("json.exception") == std::string::npos);
      CHECK(message.find(key == "format_version" ? "not a whole number" : "resume from an earlier one") !=
            std::string::npos);
    }
  }
}

TEST_CASE("a checkpoint shuffled with another random order is refused on resume", "[train][checkpoint]") {
  auto split = std::make_shared<TokenizedSplit>();
  for (int i = 0; i < 10; ++i) split->add({{101, 7 + i, 102}, {0, 0, 0}}, i % 2, i);
  SamplerConfig random{SamplerKind::Random, 42, 4, 1, 0, false};
  SplitBatchSource source(split, "train", random, PaddingOptions{}, torch::kCPU);
  // What a checkpoint records round-trips; a state without the order's name
  // comes from a runner that shuffled with SplitMix64.
  CHECK_NOTHROW(source.load_state(source.state()));
  try {
    source.load_state(nlohmann::json::object());
    FAIL("a checkpoint without the order's name was accepted");
  } catch (const InputError& e) {
    std::string text = e.what();
    CHECK_THAT(text, Catch::Contains("data.sampler"));
    CHECK_THAT(text, Catch::Contains("'splitmix64' order"));
    CHECK_THAT(text, Catch::Contains("'torch_randperm' order"));
    CHECK_THAT(text, Catch::Contains("runner version that started it"));
  }
  // A sequential order does not depend on the shuffle, so any checkpoint fits.
  SamplerConfig sequential = random;
  sequential.kind = SamplerKind::Sequential;
  SplitBatchSource in_order(split, "train", sequential, PaddingOptions{}, torch::kCPU);
  CHECK_NOTHROW(in_order.load_state(nlohmann::json::object()));
}

namespace {

// Every file of a checkpoint directory with its bytes.
std::map<std::string, std::string> directory_bytes(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out[e.path().filename().string()] = read_file_bytes(e.path());
  return out;
}

// A state whose tensors are large enough to be written in several stretches.
TrainingState large_state(long long step) {
  TrainingState s = sample_state(step);
  s.model["encoder.big"] = torch::randn({3, 1 << 20});  // 12 MiB: three 4 MiB stretches
  return s;
}

}  // namespace

TEST_CASE("an asynchronous checkpoint has the bytes and digests of a synchronous one", "[train][checkpoint]") {
  std::string dir = runner::test::tmp_dir("ckpt_async_equal");
  TrainingState s = large_state(30);
  std::string sync = write_checkpoint(dir + "/sync", checkpoint_name(30), encode_training_state(s));
  Checkpointer checkpointer(dir + "/async", 2);
  CheckpointTaken taken = checkpointer.save(s, "");
  // The loop goes on changing its tensors in place while the writer works.
  for (auto& [name, t] : s.model) t.add_(1);
  Checkpointer::Final end = checkpointer.finalize();
  REQUIRE(end.end == CheckpointEnd::Finished);
  REQUIRE_FALSE(end.failure);
  REQUIRE(end.written.size() == 1);
  CHECK(end.written[0].path == taken.path);
  CHECK(taken.path == dir + "/async/step-00000030");
  CHECK(verify_checkpoint(taken.path).empty());
  const auto expected = directory_bytes(sync), actual = directory_bytes(taken.path);
  CHECK(expected.size() == 5);  // state, model, optimizer, rng and the manifest
  for (const auto& [file, bytes] : expected) {
    INFO(file);
    CHECK(actual.count(file));
    CHECK((actual.count(file) && actual.at(file) == bytes));
  }
  // The digests were computed while the bytes were written: they are those of the file.
  auto manifest = nlohmann::json::parse(actual.at("manifest.json"));
  CHECK(manifest["files"]["model.safetensors"]["sha256"] ==
        runner::digest::sha256_hex(actual.at("model.safetensors")));
}

TEST_CASE("one checkpoint write in flight: the next save waits for it and records the wait",
          "[train][checkpoint]") {
  using Clock = std::chrono::steady_clock;
  std::string dir = runner::test::tmp_dir("ckpt_async_wait");
  std::atomic<Clock::rep> paused_at{0};
  const auto pause = std::chrono::milliseconds(300);
  auto slow_model_file = [&](const std::string& checkpoint, const std::string& file) {
    if (checkpoint != checkpoint_name(10) || file != "model.safetensors") return;
    paused_at = Clock::now().time_since_epoch().count();
    std::this_thread::sleep_for(pause);
  };
  Checkpointer checkpointer(dir, 5, slow_model_file);
  checkpointer.save(sample_state(10), "");
  const TrainingState next = sample_state(20);
  const Clock::time_point second_save = Clock::now();
  CheckpointTaken taken = checkpointer.save(next, "");
  // The first write was whole before the second snapshot was taken.
  CHECK(verify_checkpoint(dir + "/step-00000010").empty());
  REQUIRE(paused_at.load() != 0);
  // The writer slept `pause` from paused_at on, and the wait began at second_save:
  // it lasted at least the rest of that sleep.
  const Clock::time_point sleep_end = Clock::time_point(Clock::duration(paused_at.load())) + pause;
  const double rest = std::chrono::duration<double>(sleep_end - second_save).count();
  CHECK(taken.wait_s >= rest);
  CHECK(taken.stall_s >= taken.wait_s);
  Checkpointer::Final end = checkpointer.finalize();
  CHECK(end.end == CheckpointEnd::Finished);
  CHECK(checkpointer.totals().taken == 2);
  CHECK(checkpointer.totals().written == 2);
  CHECK(checkpointer.totals().wait_s >= taken.wait_s);
}

TEST_CASE("a write abandoned at the run's end leaves the previous checkpoint the newest valid one",
          "[train][checkpoint]") {
  std::string dir = runner::test::tmp_dir("ckpt_async_abandon");
  std::atomic<bool> release{false};
  auto held = [&](const std::string& checkpoint, const std::string& file) {
    if (checkpoint == checkpoint_name(20) && file == "model.safetensors")
      while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  };
  Checkpointer checkpointer(dir, 5, held);
  checkpointer.save(sample_state(10), "");
  checkpointer.save(sample_state(20), "");
  // As a second Ctrl-C would: abandon, then let the writer reach its next file.
  Checkpointer::Final end = checkpointer.finalize([&] { return release = true; });
  CHECK(end.end == CheckpointEnd::Abandoned);
  CHECK_FALSE(end.failure);
  CHECK(list_checkpoints(dir) == std::vector<std::string>{dir + "/step-00000010"});
  for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().filename().string().rfind(".tmp-", 0) != 0);
}

TEST_CASE("a failed background write is reported to the loop, the previous checkpoint kept",
          "[train][checkpoint]") {
  std::string dir = runner::test::tmp_dir("ckpt_async_failure");
  auto full_disk = [](const std::string& checkpoint, const std::string& file) {
    if (checkpoint == checkpoint_name(20) && file == "optimizer.safetensors")
      throw std::runtime_error("injected: No space left on device");
  };
  Checkpointer checkpointer(dir, 5, full_disk);
  checkpointer.save(sample_state(10), "");
  checkpointer.save(sample_state(20), "");
  Checkpointer::Final end = checkpointer.finalize();
  CHECK(end.end == CheckpointEnd::Failed);
  REQUIRE(end.failure);
  CHECK_THROWS_WITH(std::rethrow_exception(end.failure), Catch::Contains("No space left"));
  CHECK(*newest_valid_checkpoint(dir, nullptr) == dir + "/step-00000010");
}

TEST_CASE("a checkpoint is invalid unless its manifest lists exactly its files", "[train][checkpoint]") {
  std::string dir = runner::test::tmp_dir("ckpt_exact_manifest");
  std::string older = write_checkpoint(dir, checkpoint_name(10), encode_training_state(sample_state(10)));
  auto newer = [&](long long step) {
    return write_checkpoint(dir, checkpoint_name(step), encode_training_state(sample_state(step)));
  };
  auto rewrite_manifest = [](const std::string& path, const std::function<void(nlohmann::json&)>& edit) {
    auto m = nlohmann::json::parse(read_file_bytes(path + "/manifest.json"));
    edit(m);
    write_file_synced(path + "/manifest.json", m.dump());
  };

  SECTION("a file the manifest forgot, damaged") {
    std::string path = newer(20);
    rewrite_manifest(path, [](nlohmann::json& m) { m["files"].erase("model.safetensors"); });
    flip_byte(path + "/model.safetensors", 100);
    CHECK(verify_checkpoint(path) == "model.safetensors: present but not listed in manifest.json");
  }
  SECTION("an extra file") {
    std::string path = newer(20);
    std::ofstream(path + "/notes.txt") << "left here";
    CHECK(verify_checkpoint(path) == "notes.txt: present but not listed in manifest.json");
  }
  SECTION("an empty manifest") {
    std::string path = newer(20);
    rewrite_manifest(path, [](nlohmann::json& m) { m["files"] = nlohmann::json::object(); });
    CHECK_THAT(verify_checkpoint(path), Catch::StartsWith("manifest.json: lists no files"));
  }
  // Each is skipped for the older checkpoint, as a missing file is.
  CHECK(*newest_valid_checkpoint(dir, nullptr) == older);
}

TEST_CASE("a training state whose step disagrees with its checkpoint's name is refused", "[train][checkpoint]") {
  // The case: global_step raised in state.json and the manifest rehashed.
  std::string dir = runner::test::tmp_dir("ckpt_raised_step");
  const std::vector<std::pair<std::string, nlohmann::json>> edits = {
      {"global_step", 100000}, {"scheduler_step", 9}, {"batch_in_epoch", -1}, {"world_size", 0},
      // Counts that are not whole numbers: 8.0 would pass for step 8, 1e30 convert with undefined behaviour.
      {"global_step", 8.0}, {"epoch", 1e30}, {"samples_seen", "64"},
      {"sampler", 5}, {"sampler", {{"length_group_batch", "x"}}}};
  for (size_t i = 0; i < edits.size(); ++i) {
    const auto& [key, value] = edits[i];
    INFO(key << " = " << value.dump());
    std::string path = checkpoint_with_state_edit(dir + "/" + std::to_string(i), 8, key, value);
    REQUIRE(verify_checkpoint(path).empty());  // the manifest vouches for the edited file
    CHECK_THROWS_WITH(load_training_state(path), Catch::Contains(path + "/state.json") &&
                                                     Catch::Contains("resume from an earlier one"));
  }
  // A CUDA generator the state lists and rng.safetensors lacks: named, not std::map::at's "map::at".
  std::string path = checkpoint_with_state_edit(dir + "/cuda_devices", 8, "cuda_devices", 1);
  CHECK_THROWS_WITH(load_training_state(path), Catch::Contains(path + "/rng.safetensors") &&
                                                   Catch::Contains("no \"cuda.0\""));
}
