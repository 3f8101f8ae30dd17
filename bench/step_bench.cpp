// bench/step: the runner's training step side by side with the step the Python
// stack runs (Transformers' padded BERT + torch.optim AdamW + clip_grad_norm_ +
// linear schedule, reimplemented with plain LibTorch in reference_bert.cpp), in
// one process, on the same real batches of a shipped recipe, rounds alternating.
//
//   step_bench [--steps N=20] [--pairs P=5] [--profile] [--cases NAME,...]
//   step_bench --families [--steps N] [--pairs P]
//   step_bench --recipe FILE [--set KEY=VALUE]... [--steps N] [--ops-json OUT]
//
// The runner side is the whole Trainer (prefetching batch source, NaN check,
// clipping, AdamW, schedule, zero_grad); the reference gets its batches for free.
// The ratio is reference time / runner time over the same steps, each step's
// time the median over the pairs (bench_timing.h). GFLOP/s counts only useful
// work (real tokens), against GEMM ceilings measured in this run. --profile adds
// a breakdown (data, forward, backward, optimizer) and the largest ops.
// --families times the SST-2 recipes of each model family against BERT-Mini's.
// --recipe breaks down the runner's step alone on any recipe (phases and the 20
// largest ops), for a family the reference cannot run; --ops-json also writes
// every op's self ms and calls per step there (bench/op_profile_table.py reads it
// beside the peer's: bench/peer_ab.sh --profile).
#include "model/lora_options.h"
#include "model/model_context.h"
#include "model/model_factory.h"
#include "optim/grad_clip.h"
#include "recipe/recipe.h"
#include "run/run_data.h"
#include "run/run_setup.h"
#include "train/autocast.h"
#include "train/trainer.h"
#include "util/cpu_info.h"
#include "util/diagnostic.h"
#include "util/paths.h"

#include "bench_timing.h"
#include "op_profile.h"
#include "reference_bert.h"
#include "trainer_round.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace runner;
using namespace bench;

namespace {

struct Case {
  std::string name, recipe;
  std::vector<std::string> overrides;
  double target = 0;        // the minimum ratio; 0: reported only
  bool bf16 = false;
  double steps_scale = 1;   // bert-base steps are slower: fewer of them
};

std::vector<Case> all_cases() {
  const std::string bf16 = "train.precision=bf16";
  return {{"mrpc-fp32", "recipes/mrpc_bert_mini.toml", {}, 1.5},
          {"sst2-fp32", "recipes/sst2_bert_mini.yaml", {}, 1.8},
          {"mrpc-bf16", "recipes/mrpc_bert_mini.toml", {bf16}, 1.3, true},
          {"sst2-bf16", "recipes/sst2_bert_mini.yaml", {bf16}, 1.3, true},
          {"mrpc-base-fp32", "recipes/mrpc_bert_mini.toml",
           {"model.preset=bert-base", "data.train_batch_size=8"}, 0, false, 0.25}};
}

struct Options {
  long long steps = 20;
  int pairs = 5;
  bool profile = false, families = false;
  std::vector<std::string> cases;
  std::string recipe;             // --recipe: profile this recipe's runner step
  std::vector<std::string> sets;  // its --set overrides
  std::string ops_json;           // --ops-json: every op of the recipe's step, per step
};

// What one case trains: the recipe's model, data and the first `steps` batches of epoch 0.
struct Prepared {
  Recipe recipe;
  TrainerConfig train;
  DataSettings data_settings;
  RunData data;
  std::shared_ptr<TaskModel> model;
  std::vector<TrainBatch> batches;
};

Prepared prepare(const std::string& recipe, std::vector<std::string> overrides, long long steps) {
  RecipeRequest req;
  req.path = std::string(RUNNER_SOURCE_ROOT) + "/" + recipe;
  for (const char* o : {"train.log_every=1000000", "train.eval_every=0", "train.eval_each_epoch=false",
                        "train.checkpoint_every=0"})
    overrides.push_back(o);
  req.overrides = overrides;
  RecipeLoad load = load_recipe(req, registry());
  if (!load.recipe) throw std::runtime_error(format_all(load.diags));
  Prepared p{*load.recipe, trainer_config_from(load.recipe->section("train")),
             data_settings_from(load.recipe->section("data")), {}, nullptr, {}};
  p.data = open_data(p.data_settings, p.recipe.section("data"), p.recipe.section("tokenizer"));
  tokenize_data(p.data, p.data_settings, p.recipe.section("data"), [](const nlohmann::json&) {});
  const DatasetInfo& info = p.data.dataset->info();
  torch::manual_seed(42);
  // As a run builds it: the data's task head, the recipe's adapters.
  p.model = build_model(p.recipe.section("model"), model_context_of(info), {},
                        lora_settings_from(p.recipe.section("lora"))).model;
  SplitBatchSource source(p.data.train, p.data.train_split, train_sampler_config(p.data_settings, 42),
                          p.data.padding, torch::kCPU);
  source.start_epoch(0);
  for (long long i = 0; i < steps; ++i) p.batches.push_back(source.batch(i));
  return p;
}

double base_lr(const Prepared& p) { return p.recipe.section("optimizer").at("lr"); }

Round runner_round(Prepared& p) {
  return trainer_round(p.recipe, p.model, p.data, static_cast<long long>(p.batches.size()));
}

ReferenceStep make_reference_step(const Prepared& p, ReferenceBert& ref) {
  const auto total = static_cast<long long>(p.batches.size());
  const double warmup_ratio = p.recipe.section("scheduler").value("warmup_ratio", 0.0);
  return ReferenceStep(ref, p.train.precision, base_lr(p), p.recipe.section("optimizer").value("weight_decay", 0.0),
                       p.train.max_grad_norm, static_cast<long long>(std::ceil(warmup_ratio * total)),
                       total);
}

Round reference_round(const Prepared& p, ReferenceBert& ref) {
  ReferenceStep step = make_reference_step(p, ref);
  Round round;
  auto last = Clock::now();
  for (const auto& b : p.batches) {
    step.step(b.tensors);
    auto now = Clock::now();
    round.step_seconds.push_back(seconds_between(last, now));
    last = now;
    round.samples += b.examples;
    round.tokens += b.tokens;
  }
  return round;
}

// Useful training FLOPs of the batches: the encoder's GEMMs on real tokens and
// attention over each sequence's real length, x3 for forward and backward.
double useful_flops(const Prepared& p) {
  const nlohmann::json c = p.model->hf_config();
  const double h = c.at("hidden_size"), i = c.at("intermediate_size"), layers = c.at("num_hidden_layers");
  double flops = 0;
  for (const auto& b : p.batches) {
    auto lengths = b.tensors.attention_mask.sum(1).to(torch::kDouble);
    double tokens = lengths.sum().item<double>(), squares = lengths.pow(2).sum().item<double>();
    flops += 3.0 * layers * (2.0 * tokens * (4.0 * h * h + 2.0 * h * i) + 4.0 * squares * h);
  }
  return flops;
}

double gemm_ceiling_gflops(torch::ScalarType dtype) {
  auto a = torch::randn({2048, 2048}).to(dtype), b = torch::randn({2048, 2048}).to(dtype);
  torch::mm(a, b);
  double best = 0;
  for (int i = 0; i < 5; ++i) {
    auto t0 = Clock::now();
    torch::mm(a, b);
    best = std::max(best, 2.0 * 2048 * 2048 * 2048 / seconds_between(t0, Clock::now()) / 1e9);
  }
  return best;
}

// The reference computes the runner model's function: same loss without dropout.
void check_same_function(const Prepared& p, ReferenceBert& ref) {
  torch::NoGradGuard no_grad;
  p.model->eval();
  ref.set_training(false);
  double ours = p.model->forward(p.batches.front().tensors).loss.item<double>();
  double theirs = ref.loss(p.batches.front().tensors).item<double>();
  p.model->train();
  ref.set_training(true);
  if (std::abs(ours - theirs) > 1e-4 * std::max(1.0, std::abs(ours)))
    throw std::runtime_error(fmt::format("the reference computes another function: loss {} vs {}", theirs, ours));
}

struct Phases {
  double data = 0, forward = 0, backward = 0, optimizer = 0;
};

void print_phases(const char* side, const Phases& t, long long steps) {
  fmt::print("    {:<9} per step: data {:6.1f} ms  forward {:6.1f} ms  backward {:6.1f} ms  optimizer {:6.1f} ms\n",
             side, 1e3 * t.data / steps, 1e3 * t.forward / steps, 1e3 * t.backward / steps,
             1e3 * t.optimizer / steps);
}

Phases runner_phases(Prepared& p) {
  SplitBatchSource source(p.data.train, p.data.train_split, train_sampler_config(p.data_settings, 42),
                          p.data.padding, torch::kCPU);
  source.start_epoch(0);
  auto opt = make_optimizer(p.recipe.section("optimizer"), *p.model);
  Phases t;
  for (size_t i = 0; i < p.batches.size(); ++i) {
    auto t0 = Clock::now();
    TrainBatch b = source.batch(static_cast<long long>(i));
    auto t1 = Clock::now();
    torch::Tensor loss;
    {
      AutocastGuard autocast(p.train.precision, c10::DeviceType::CPU);  // the forward only, as the Trainer
      loss = p.model->forward(b.tensors).loss;
    }
    auto t2 = Clock::now();
    loss.backward();
    auto t3 = Clock::now();
    clip_grad_norm(opt->parameters(), p.train.max_grad_norm);
    opt->step(base_lr(p));
    // As the Trainer without data parallelism: the next backward writes fresh gradients.
    for (const auto& param : opt->parameters()) param.tensor.mutable_grad().reset();
    auto t4 = Clock::now();
    t.data += seconds_between(t0, t1), t.forward += seconds_between(t1, t2);
    t.backward += seconds_between(t2, t3), t.optimizer += seconds_between(t3, t4);
  }
  return t;
}

Phases reference_phases(const Prepared& p, ReferenceBert& ref) {
  ReferenceStep step = make_reference_step(p, ref);
  Phases t;
  for (const auto& b : p.batches) {
    auto t1 = Clock::now();
    torch::Tensor loss = step.forward(b.tensors);
    auto t2 = Clock::now();
    loss.backward();
    auto t3 = Clock::now();
    step.update();
    t.forward += seconds_between(t1, t2), t.backward += seconds_between(t2, t3);
    t.optimizer += seconds_between(t3, Clock::now());
  }
  return t;
}

void print_top_ops(const char* side, const std::vector<OpTime>& ops, long long steps, size_t count = 10) {
  std::ostringstream line;
  for (size_t i = 0; i < ops.size() && i < count; ++i)
    line << fmt::format("{}{} {:.1f}", i ? ", " : "", ops[i].name, ops[i].self_ms / steps);
  fmt::print("    {:<9} top ops (self ms/step): {}\n", side, line.str());
}

void profile_case(Prepared& p, ReferenceBert& ref) {
  const auto steps = static_cast<long long>(p.batches.size());
  print_phases("reference", reference_phases(p, ref), steps);
  print_phases("runner", runner_phases(p), steps);
  print_top_ops("reference", profile_ops([&] { reference_phases(p, ref); }), steps);
  print_top_ops("runner", profile_ops([&] { runner_phases(p); }), steps);
}

// {"steps": N, "phases": {...}, "ops": [{"name", "self_ms", "calls"}, ...]}:
// ms per step, the phases from an unprofiled pass, the ops largest first.
void write_ops_json(const std::string& path, const Phases& t, const std::vector<OpTime>& ops, long long steps) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& op : ops)
    list.push_back({{"name", op.name}, {"self_ms", op.self_ms / steps},
                    {"calls", static_cast<double>(op.calls) / static_cast<double>(steps)}});
  std::ofstream out(path);
  const double ms = 1e3 / static_cast<double>(steps);
  const nlohmann::json phases = {{"data", t.data * ms}, {"forward", t.forward * ms}, {"backward", t.backward * ms},
                                 {"optimizer", t.optimizer * ms}};
  out << nlohmann::json{{"side", "runner"}, {"steps", steps}, {"phases", phases}, {"ops", list}}.dump() << "\n";
  if (!out) throw std::runtime_error("cannot write " + path);
}

void profile_recipe(const Options& o) {
  Prepared p = prepare(o.recipe, o.sets, o.steps);
  const auto steps = static_cast<long long>(p.batches.size());
  runner_round(p);  // warm-up
  fmt::print("{}: {} steps\n", o.recipe, steps);
  const Phases phases = runner_phases(p);
  print_phases("runner", phases, steps);
  const std::vector<OpTime> ops = profile_ops([&] { runner_phases(p); });
  print_top_ops("runner", ops, steps, 20);
  if (!o.ops_json.empty()) write_ops_json(o.ops_json, phases, ops, steps);
}

struct Ceilings {
  double fp32 = 0, bf16 = 0;
};

void bench_case(const Case& c, const Options& o, const Ceilings& ceilings) {
  const auto steps = std::max(3LL, static_cast<long long>(o.steps * c.steps_scale));
  Prepared p = prepare(c.recipe, c.overrides, steps);
  ReferenceBert ref(*p.model, reference_shape(p.model->hf_config()));
  check_same_function(p, ref);
  runner_round(p);  // warm-up: allocator, thread pools, optimizer state
  reference_round(p, ref);
  std::vector<Round> ours, theirs;
  for (int i = 0; i < o.pairs; ++i) {
    if (i % 2 == 0) theirs.push_back(reference_round(p, ref));
    ours.push_back(runner_round(p));
    if (i % 2 == 1) theirs.push_back(reference_round(p, ref));
  }
  const double t_ours = sum_of_step_medians(ours), t_ref = sum_of_step_medians(theirs);
  const double ratio = t_ref / t_ours, flops = useful_flops(p);
  const double ceiling = c.bf16 ? ceilings.bf16 : ceilings.fp32;
  auto share = [&](double seconds) { return flops / seconds / 1e9 / ceiling * 100.0; };
  fmt::print("{:<15} {:>5} | reference {:6.1f} samples/s {:5.1f} GFLOP/s ({:4.1f}%) | runner {:6.1f} "
             "samples/s {:5.1f} GFLOP/s ({:4.1f}%) | {:.2f}x{}\n",
             c.name, steps, fastest(theirs).samples_per_s(), flops / t_ref / 1e9, share(t_ref),
             fastest(ours).samples_per_s(), flops / t_ours / 1e9, share(t_ours), ratio,
             c.target > 0 ? fmt::format(" (target {:.1f}x: {})", c.target, ratio >= c.target ? "met" : "NOT MET")
                          : std::string());
  if (o.profile) profile_case(p, ref);
  std::fflush(stdout);
}

bool wanted(const Options& o, const Case& c) {
  if (c.bf16 && !cpu_has_native_bf16()) return false;
  return o.cases.empty() || std::find(o.cases.begin(), o.cases.end(), c.name) != o.cases.end();
}

// Issue 13's figure: each family's SST-2 step against BERT-Mini's, alternating.
void bench_families(const Options& o) {
  std::vector<std::string> recipes = {"recipes/sst2_bert_mini.yaml", "recipes/sst2_distilbert_mini.toml",
                                      "recipes/sst2_electra_mini.toml"};
  std::vector<Prepared> prepared;
  for (const auto& r : recipes) prepared.push_back(prepare(r, {}, o.steps));
  std::vector<std::vector<Round>> rounds(recipes.size());
  for (auto& p : prepared) runner_round(p);
  for (int i = 0; i < o.pairs; ++i)
    for (size_t k = 0; k < recipes.size(); ++k) {
      size_t m = (k + static_cast<size_t>(i)) % recipes.size();  // rotate who goes first
      rounds[m].push_back(runner_round(prepared[m]));
    }
  const double bert = sum_of_step_medians(rounds[0]);
  for (size_t m = 0; m < recipes.size(); ++m)
    fmt::print("{:<36} {:6.1f} samples/s  step time {:.2f}x BERT-Mini's\n", recipes[m],
               fastest(rounds[m]).samples_per_s(), sum_of_step_medians(rounds[m]) / bert);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--steps") o.steps = std::stoll(next());
    else if (a == "--pairs") o.pairs = std::stoi(next());
    else if (a == "--profile") o.profile = true;
    else if (a == "--families") o.families = true;
    else if (a == "--recipe") o.recipe = next();
    else if (a == "--set") o.sets.push_back(next());
    else if (a == "--ops-json") o.ops_json = next();
    else if (a == "--cases") {
      std::stringstream s(next());
      for (std::string name; std::getline(s, name, ',');) o.cases.push_back(name);
    } else {
      throw std::runtime_error("unknown argument " + a + " (see the comment at the top of bench/step_bench.cpp)");
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) try {
  Options o = parse(argc, argv);
  int threads = apply_thread_setting(RunSettings{});
  fmt::print("bench/step: {} threads, {} steps per round, {} alternating pairs; CPU {} native bf16\n",
             threads, o.steps, o.pairs, cpu_has_native_bf16() ? "with" : "without");
  if (o.families) {
    bench_families(o);
    return 0;
  }
  if (!o.recipe.empty()) {
    profile_recipe(o);
    return 0;
  }
  Ceilings ceilings{gemm_ceiling_gflops(torch::kFloat32), gemm_ceiling_gflops(torch::kBFloat16)};
  fmt::print("GEMM ceiling (2048x2048, this run): fp32 {:.0f} GFLOP/s, bf16 {:.0f} GFLOP/s; "
             "ratio = reference step time / runner step time\n", ceilings.fp32, ceilings.bf16);
  fmt::print("before: {}\n", load_note(threads));
  for (const auto& c : all_cases())
    if (wanted(o, c)) bench_case(c, o, ceilings);
  fmt::print("after: {}\n", load_note(threads));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "step_bench: %s\n", e.what());
  return 2;
}
