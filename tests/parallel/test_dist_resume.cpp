// A data-parallel run stopped mid-epoch and resumed must end where the
// uninterrupted run ends, bit for bit, with dropout on: each rank's generator
// starts from seed + rank and draws its own dropout masks, so the checkpoint
// keeps every rank's random generator, not rank 0's alone (with rank 0's
// restored everywhere, rank 1's masks after the resume differ and the weights
// drift from the first step after it).
#include "train/training_state.h"

#include "run_files.h"
#include "shared.h"
#include "toy_ranks.h"

#include "catch.h"
#include <nlohmann/json.hpp>

using runner::test::events;
using runner::test::free_port;
using runner::test::only_run_dir;
using runner::test::run_command;

namespace {

// 64 MRPC pairs, 2 epochs of 4 steps of 2 x 8, a loss every step, a
// checkpoint every 2; the model preset's dropout stays on.
std::string launch(const std::string& env, const std::string& dir, const std::string& extra = "") {
  return env + " " + runner::test::runner_exe() + " launch --nproc-per-node 2 --master-port " +
         std::to_string(free_port()) + " " + runner::test::source_dir() + "/recipes/smoke/mrpc_smoke.toml" +
         " --set run.output_dir=" + dir + "/runs --set run.threads=1 --set data.max_train_examples=64" +
         " --set data.max_eval_examples=64 --set data.eval_batch_size=32 --set data.train_batch_size=8" +
         " --set train.epochs=2 --set train.log_every=1 --set train.checkpoint_every=2" + extra;
}

std::vector<nlohmann::json> reproducible_events(const std::string& run_dir) {
  std::vector<nlohmann::json> out;
  for (const char* kind : {"train", "eval"})
    for (auto e : events(run_dir, kind)) {
      for (const char* timing : {"samples_per_s", "tokens_per_s", "wall_time", "elapsed_s"}) e.erase(timing);
      out.push_back(e);
    }
  return out;
}

}  // namespace

TEST_CASE("2 ranks stopped by SIGTERM mid-epoch resume to the uninterrupted run's final weights "
          "(dropout on)", "[parallel][resume]") {
  std::string root = runner::test::tmp_dir("dist_resume_dropout");
  auto ref = run_command(launch("", root + "/ref"));
  INFO(ref.out);
  REQUIRE(ref.exit_code == 0);
  // SIGTERM at the end of step 5: the ranks agree to stop at the end of the
  // next step (6, mid second epoch), checkpoint together and exit 143.
  auto stopped = run_command(launch("RUNNER_TEST_TERM_AT_STEP=5", root + "/stopped"));
  INFO(stopped.out);
  REQUIRE(stopped.exit_code == 143);
  auto resumed = run_command(launch("", root + "/stopped", " --resume auto"));
  INFO(resumed.out);
  REQUIRE(resumed.exit_code == 0);
  const std::string a = only_run_dir(root + "/ref"), b = only_run_dir(root + "/stopped");
  CHECK(events(b, "start").back()["resumed_at_step"] == 6);
  // The ranks' generators started apart (seed + rank), so rank 0's state
  // restored on rank 1 would not do.
  runner::TrainingState saved = runner::load_training_state(b + "/checkpoints/step-00000006");
  REQUIRE(saved.rank_cpu_rng.size() == 1);
  CHECK_FALSE(torch::equal(saved.rank_cpu_rng[0], saved.cpu_rng));
  CHECK(runner::test::read_text(b + "/final/model.safetensors") ==
        runner::test::read_text(a + "/final/model.safetensors"));
  CHECK(reproducible_events(b) == reproducible_events(a));
}
