// bench/checkpoint_stall: what a BERT-base checkpoint costs the training loop,
// asynchronous against synchronous, in one run on this machine's disk.
//
//   checkpoint_stall [--dir DIR=build/bench-checkpoints] [--rounds N=3]
//
// The state is a BERT-base classifier built from ../shared/models/bert-base-uncased/
// config.json (random weights: only the sizes matter) and two AdamW moments per
// parameter, ~1.3 GB as a checkpoint. Rows, each printed as soon as measured:
//   sync-before  the chain the loop used to wait for: encode every file into one
//                string, sha256 of it, write, fsync, rename, then prune, which
//                reads the newest checkpoint back and hashes it again
//   sync-now     the same files written synchronously by today's writer (hashed
//                while written, no read-back)
//   async stall  Checkpointer::save(): the loop's wait, the copy to host memory
//   async write  the background writer's time for that checkpoint
// The ratio is the median async stall over the median sync-before time (target
// <= 0.25 on the CPU, issue 42), and also over sync-now.
#include "model/bert.h"
#include "train/checkpoint_io.h"
#include "train/checkpointer.h"
#include "train/tensor_file.h"
#include "train/training_state.h"
#include "util/cpu_info.h"
#include "util/paths.h"

#include "bench_timing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

using namespace runner;
using namespace bench;
namespace fs = std::filesystem;

namespace {

// The model's tensors and an AdamW state of the same sizes, as the trainer's
// live_state() hands them to the checkpointer.
TrainingState bert_base_state() {
  BertConfig config = read_bert_config(std::string(RUNNER_SOURCE_ROOT) + "/../shared/models/bert-base-uncased/config.json");
  config.num_labels = 2;
  torch::manual_seed(0);
  BertForSequenceClassification model(config, Init::HuggingFace);
  TrainingState s;
  for (const auto& p : model.named_parameters()) {
    s.model[p.key()] = p.value().detach().clone();
    s.optimizer[p.key() + "/step"] = torch::full({}, 100.0f);
    s.optimizer[p.key() + "/exp_avg"] = torch::randn_like(p.value());
    s.optimizer[p.key() + "/exp_avg_sq"] = torch::rand_like(p.value());
  }
  for (const auto& b : model.named_buffers()) s.model[b.key()] = b.value().detach().clone();
  capture_rng(s);
  return s;
}

double bytes_of(const TrainingState& s) {
  double n = 0;
  for (const TensorMap* m : {&s.model, &s.optimizer})
    for (const auto& [name, t] : *m) n += static_cast<double>(t.nbytes());
  return n;
}

// The synchronous chain before the background writer: a clone of the state,
// each file's bytes in one string, and a prune that verifies the newest.
double sync_before(const TrainingState& live, const std::string& dir, long long step) {
  const Clock::time_point began = Clock::now();
  TrainingState copy = live;
  for (auto& [name, t] : copy.model) t = t.clone();
  std::vector<CheckpointFile> files;
  for (CheckpointFile& f : encode_training_state(copy)) {
    for (std::string_view piece : f.pieces) f.bytes.append(piece);
    files.push_back({f.name, std::move(f.bytes)});
  }
  write_checkpoint(dir, checkpoint_name(step), files);
  prune_checkpoints(dir, 1, "");
  return seconds_between(began, Clock::now());
}

double sync_now(const TrainingState& live, const std::string& dir) {
  const Clock::time_point began = Clock::now();
  Checkpointer writer(dir, 1);
  writer.save(live, "");
  writer.finalize();
  return seconds_between(began, Clock::now());
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = "build/bench-checkpoints";
  int rounds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--dir")) dir = argv[i + 1];
    else if (!std::strcmp(argv[i], "--rounds")) rounds = std::max(1, std::atoi(argv[i + 1]));
  }
  fs::remove_all(dir);
  fs::create_directories(dir);
  at::set_num_threads(1);  // the loop's thread; the writer runs beside it
  TrainingState state = bert_base_state();
  std::printf("checkpoint_stall: %s, %.0f MB of tensors (BERT-base + AdamW), %d rounds, into %s\n",
              cpu_model().c_str(), bytes_of(state) / 1e6, rounds, dir.c_str());
  std::printf("%-6s %-12s %10s\n", "round", "row", "seconds");
  std::fflush(stdout);
  std::vector<double> before, now, stall, write;
  Checkpointer async(dir + "/async", 1);
  long long step = 0;
  for (int r = 0; r < rounds; ++r) {
    auto row = [&](const char* name, double s, std::vector<double>& into) {
      into.push_back(s);
      std::printf("%-6d %-12s %10.3f\n", r, name, s);
      std::fflush(stdout);
    };
    row("sync-before", sync_before(state, dir + "/before", ++step), before);
    row("sync-now", sync_now(state, dir + "/now"), now);
    // The loop trains on after save(); the next save would wait for this write.
    CheckpointTaken taken = async.save(state, "");
    for (auto& [name, t] : state.model) t.add_(1e-6);  // the loop changes its tensors meanwhile
    Checkpointer::Final done = async.finalize();
    row("async-stall", taken.stall_s, stall);
    row("async-write", done.written.empty() ? 0.0 : done.written.front().write_s, write);
    state.global_step = ++step;
  }
  const double ratio = median(stall) / median(before);
  std::printf("median: sync-before %.3f s, sync-now %.3f s, async stall %.3f s, async write %.3f s\n",
              median(before), median(now), median(stall), median(write));
  std::printf("stall / sync-before = %.3f (target <= 0.25: %s); stall / sync-now = %.3f\n", ratio,
              ratio <= 0.25 ? "met" : "NOT met", median(stall) / median(now));
  fs::remove_all(dir);
  return 0;
}
