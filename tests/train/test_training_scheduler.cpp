// The training scheduler's rules, asked directly: when the loop keeps going,
// settles, logs, evaluates and checkpoints, and how an evaluation moves the
// best metric and early stopping. No model, no data: every answer follows
// from the configuration, the step, the clock and the agreements.
#include "train/checkpoint_io.h"
#include "train/interrupt.h"
#include "train/training_scheduler.h"

#include "catch.h"

#include <chrono>
#include <csignal>
#include <functional>
#include <thread>
#include <vector>

#include <pthread.h>

using runner::RankAgreement;
using runner::TrainerConfig;
using runner::TrainingScheduler;
using namespace std::chrono_literals;

namespace {

TrainerConfig config_every(long long log_every, long long eval_every, long long checkpoint_every) {
  TrainerConfig c = runner::train_options().defaults();
  c.log_every = log_every;
  c.eval_every = eval_every;
  c.eval_each_epoch = false;
  c.checkpoint_every = checkpoint_every;
  c.checkpoint_every_minutes = 0;
  c.checkpoints_dir = "runs/x/checkpoints";
  return c;
}

const std::vector<std::string> kMetrics = {"accuracy", "f1"};

nlohmann::json eval_at(long long step, double f1) {
  return {{"event", "eval"}, {"step", step}, {"f1", f1}, {"accuracy", 0.5}};
}

std::vector<long long> steps_where(long long total, const std::function<bool(long long)>& rule) {
  std::vector<long long> out;
  for (long long s = 1; s <= total; ++s)
    if (rule(s)) out.push_back(s);
  return out;
}

}  // namespace

TEST_CASE("the scheduler logs, evaluates and checkpoints at their configured steps and the last",
          "[scheduler]") {
  TrainerConfig c = config_every(5, 4, 6);
  TrainingScheduler s(c, 14, &kMetrics);
  CHECK(steps_where(14, [&](long long k) { return s.logs_at(k); }) == std::vector<long long>{5, 10, 14});
  CHECK(steps_where(14, [&](long long k) { return s.evaluates_at(k, false); }) ==
        std::vector<long long>{4, 8, 12, 14});
  CHECK(steps_where(14, [&](long long k) { return s.checkpoints_at(k, false); }) == std::vector<long long>{6, 12});
  // Every step where one of them acts settles first, and none other (capacity 5 is never reached here).
  CHECK(steps_where(14, [&](long long k) { return s.settles_at(k, false, 1); }) ==
        std::vector<long long>{4, 5, 6, 8, 10, 12, 14});
}

TEST_CASE("an epoch's end is evaluated, and settled, only under eval_each_epoch", "[scheduler]") {
  TrainerConfig c = config_every(100, 0, 0);
  TrainingScheduler off(c, 50, &kMetrics);
  CHECK_FALSE(off.evaluates_at(7, true));
  CHECK_FALSE(off.settles_at(7, true, 1));
  c.eval_each_epoch = true;
  TrainingScheduler on(c, 50, &kMetrics);
  CHECK(on.evaluates_at(7, true));
  CHECK(on.settles_at(7, true, 1));
  CHECK_FALSE(on.evaluates_at(7, false));
  SECTION("without an eval set nothing is evaluated, not even the last step") {
    TrainingScheduler none(c, 50, nullptr);
    CHECK_FALSE(none.evaluates_at(7, true));
    CHECK_FALSE(none.evaluates_at(50, false));
  }
}

TEST_CASE("a step is evaluated once: an epoch's end at an eval step is not evaluated again",
          "[scheduler]") {
  TrainerConfig c = config_every(100, 4, 0);
  c.eval_each_epoch = true;
  TrainingScheduler s(c, 50, &kMetrics);
  REQUIRE(s.evaluates_at(8, true));
  nlohmann::json e = eval_at(8, 0.5);
  s.record_eval(e);
  CHECK_FALSE(s.evaluates_at(8, true));
  CHECK(s.evaluates_at(12, false));
}

TEST_CASE("an epoch's end is checkpointed, and settled, only under checkpoint_each_epoch", "[scheduler]") {
  TrainerConfig c = config_every(100, 0, 0);
  TrainingScheduler off(c, 50, nullptr);
  const auto now = TrainingScheduler::Clock::now();
  off.started(now);
  CHECK_FALSE(off.checkpoint_after(7, true, now));
  CHECK_FALSE(off.settles_at(7, true, 1));
  c.checkpoint_each_epoch = true;
  TrainingScheduler on(c, 50, nullptr);
  on.started(now);
  CHECK(on.checkpoints_at(7, true));
  CHECK(on.settles_at(7, true, 1));
  CHECK(on.checkpoint_after(7, true, now));
  CHECK_FALSE(on.checkpoint_after(8, false, now));
  SECTION("without a checkpoint folder an epoch's end writes none") {
    c.checkpoints_dir.clear();
    TrainingScheduler none(c, 50, nullptr);
    CHECK_FALSE(none.checkpoints_at(7, true));
  }
}

TEST_CASE("without a checkpoint folder no step checkpoints and checkpoint_every settles nothing",
          "[scheduler]") {
  TrainerConfig c = config_every(100, 0, 3);
  c.checkpoints_dir.clear();
  c.checkpoint_every_minutes = 0.001;
  TrainingScheduler s(c, 50, nullptr);
  const auto t0 = TrainingScheduler::Clock::now();
  s.started(t0);
  CHECK(steps_where(49, [&](long long k) { return s.checkpoints_at(k, false); }).empty());
  CHECK(steps_where(49, [&](long long k) { return s.settles_at(k, false, 1); }).empty());
  CHECK_FALSE(s.checkpoint_due_by_time(3, t0 + 1h));
}

TEST_CASE("the device's rate table forces a settle every min(log_every, 1000) unsettled steps",
          "[scheduler]") {
  const TrainerConfig seven = config_every(7, 0, 0), thousands = config_every(5000, 0, 0);
  TrainingScheduler few(seven, 100000, nullptr);
  CHECK(few.settle_capacity() == 7);
  CHECK_FALSE(few.settles_at(3, false, 6));
  CHECK(few.settles_at(3, false, 7));
  TrainingScheduler many(thousands, 100000, nullptr);
  CHECK(many.settle_capacity() == 1000);
  CHECK_FALSE(many.settles_at(1234, false, 999));
  CHECK(many.settles_at(1234, false, 1000));
}

TEST_CASE("a timed checkpoint is due checkpoint_every_minutes after the start or the last checkpoint",
          "[scheduler]") {
  TrainerConfig c = config_every(100, 0, 0);
  c.checkpoint_every_minutes = 1.0;
  TrainingScheduler s(c, 1000, nullptr);
  const auto t0 = TrainingScheduler::Clock::now();
  s.started(t0);
  CHECK_FALSE(s.checkpoint_due_by_time(3, t0 + 59s));
  CHECK(s.checkpoint_due_by_time(3, t0 + 60s));
  CHECK(s.checkpoint_after(3, false, t0 + 61s));
  s.checkpoint_taken(t0 + 61s);
  CHECK_FALSE(s.checkpoint_due_by_time(4, t0 + 120s));
  CHECK(s.checkpoint_due_by_time(4, t0 + 121s));
}

TEST_CASE("under data parallelism a timed checkpoint is agreed at log steps only, by any rank",
          "[scheduler]") {
  TrainerConfig c = config_every(10, 0, 0);
  c.checkpoint_every_minutes = 1.0;
  TrainingScheduler s(c, 1000, nullptr);
  int asked = 0;
  bool another_rank_due = false;
  RankAgreement agreement;
  agreement.largest_signal = [](int local) { return local; };
  agreement.any_rank = [&](bool local) {
    ++asked;
    return local || another_rank_due;
  };
  s.set_agreement(agreement);
  const auto t0 = TrainingScheduler::Clock::now();
  s.started(t0);
  // Past due on this rank, but step 15 is no log step: no collective, no checkpoint.
  CHECK_FALSE(s.checkpoint_due_by_time(15, t0 + 2min));
  CHECK(asked == 0);
  CHECK(s.checkpoint_due_by_time(20, t0 + 2min));
  CHECK(asked == 1);
  // Not due here, due on another rank: every rank checkpoints.
  another_rank_due = true;
  CHECK(s.checkpoint_due_by_time(30, t0 + 1s));
  CHECK(asked == 2);
}

TEST_CASE("the last step, a stop signal and a new best each end a step with a checkpoint", "[scheduler]") {
  TrainerConfig c = config_every(100, 0, 0);
  TrainingScheduler s(c, 10, &kMetrics);
  const auto now = TrainingScheduler::Clock::now();
  s.started(now);
  CHECK_FALSE(s.checkpoint_after(4, false, now));
  CHECK(s.checkpoint_after(10, false, now));
  nlohmann::json e = eval_at(5, 0.7);
  s.record_eval(e);
  CHECK(s.checkpoint_after(5, false, now));
  CHECK_FALSE(s.checkpoint_after(6, false, now));  // the new best asked for one checkpoint only
  RankAgreement agreement;
  agreement.largest_signal = [](int) { return SIGTERM; };
  s.set_agreement(agreement);
  s.agree_on_interrupt();
  CHECK(s.checkpoint_after(7, false, now));
}

TEST_CASE("the scheduler stops at the last step and at a stop signal agreed by the ranks", "[scheduler]") {
  const TrainerConfig c = config_every(100, 0, 0);
  TrainingScheduler s(c, 10, nullptr);
  CHECK(s.keep_going(9));
  CHECK_FALSE(s.keep_going(10));
  int local_seen = -1, agreed = 0;
  RankAgreement agreement;
  agreement.largest_signal = [&](int local) {
    local_seen = local;
    return agreed;
  };
  s.set_agreement(agreement);
  s.agree_on_interrupt();
  CHECK(local_seen == 0);  // this rank received none
  CHECK(s.keep_going(3));
  agreed = SIGINT;  // another rank received one: every rank stops after this step
  s.agree_on_interrupt();
  CHECK(s.interrupt() == SIGINT);
  CHECK_FALSE(s.keep_going(3));
  CHECK(s.ending(3));
}

TEST_CASE("alone, the scheduler stops at a signal the process received", "[scheduler]") {
  const TrainerConfig c = config_every(100, 0, 0);
  TrainingScheduler s(c, 10, nullptr);
  runner::install_interrupt_handlers();
  CHECK(s.keep_going(3));
  runner::interrupt_self(SIGINT);
  CHECK(s.interrupt() == SIGINT);
  CHECK_FALSE(s.keep_going(3));
  runner::clear_interrupt();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  runner::unblock_interrupts_here();
  CHECK(s.keep_going(3));
}

namespace {
bool blocks_stop_signals() {
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  return sigismember(&mask, SIGINT) == 1 && sigismember(&mask, SIGTERM) == 1 && sigismember(&mask, SIGHUP) == 1;
}
}  // namespace

// A signal handled on a thread inside a oneDNN sgemm kernel has its frame
// written below the kernel's heap workspace: only a thread that computes
// nothing may take it.
TEST_CASE("stop signals go to a listener thread: the installing thread and those it starts block them",
          "[scheduler]") {
  runner::install_interrupt_handlers();
  CHECK(blocks_stop_signals());
  bool started_blocks = false;
  std::thread([&] { started_blocks = blocks_stop_signals(); }).join();
  CHECK(started_blocks);
  runner::interrupt_self(SIGTERM);  // process-directed: only the listener can take it
  CHECK(runner::pending_interrupt() == SIGTERM);
  runner::clear_interrupt();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGHUP, SIG_DFL);
  runner::unblock_interrupts_here();
  CHECK_FALSE(blocks_stop_signals());
}

TEST_CASE("a higher metric is a new best under greater_is_better; patience evals without one stop early",
          "[scheduler]") {
  TrainerConfig c = config_every(100, 1, 0);
  c.metric_for_best = "eval.f1";
  c.greater_is_better = true;
  c.early_stopping_patience = 2;
  TrainingScheduler s(c, 100, &kMetrics);
  CHECK(s.best_metric() == "f1");
  nlohmann::json first = eval_at(1, 0.6), better = eval_at(2, 0.8), worse = eval_at(3, 0.7),
                 equal = eval_at(4, 0.8);
  s.record_eval(first);
  CHECK(first.value("is_best", false));
  s.record_eval(better);
  CHECK(better.value("is_best", false));
  CHECK(s.best().value == 0.8);
  CHECK(s.best().step == 2);
  CHECK(s.best().checkpoint == runner::checkpoint_name(2));
  s.record_eval(worse);
  CHECK_FALSE(worse.contains("is_best"));
  CHECK_FALSE(worse.contains("early_stop"));
  CHECK(s.keep_going(3));
  s.record_eval(equal);  // an equal value is no improvement: the second eval without one
  CHECK(equal.value("early_stop", false));
  CHECK(s.stopped_early());
  CHECK_FALSE(s.keep_going(4));
  CHECK(s.last_eval() == equal);
  CHECK(s.best().evals_without_improvement == 2);
}

TEST_CASE("a lower metric is a new best when greater_is_better is false; patience 0 never stops",
          "[scheduler]") {
  TrainerConfig c = config_every(100, 1, 0);
  c.metric_for_best = "loss";
  c.greater_is_better = false;
  c.early_stopping_patience = 0;
  TrainingScheduler s(c, 100, &kMetrics);
  for (long long step = 1; step <= 5; ++step) {
    nlohmann::json e = {{"event", "eval"}, {"step", step}, {"loss", step == 2 ? 0.1 : 1.0 + step}};
    s.record_eval(e);
    CHECK(e.value("is_best", false) == (step <= 2));
  }
  CHECK(s.best().value == 0.1);
  CHECK(s.best().step == 2);
  CHECK_FALSE(s.stopped_early());
}

TEST_CASE("the best metric defaults to the eval set's first, and a resumed best is judged against",
          "[scheduler]") {
  TrainerConfig c = config_every(100, 1, 0);
  c.metric_for_best.clear();
  c.greater_is_better = true;
  TrainingScheduler s(c, 100, &kMetrics);
  CHECK(s.best_metric() == "accuracy");
  s.restore_best({true, 0.9, 7, runner::checkpoint_name(7), 0});
  nlohmann::json e = {{"event", "eval"}, {"step", 8}, {"accuracy", 0.85}};
  s.record_eval(e);
  CHECK_FALSE(e.contains("is_best"));
  CHECK(s.best().step == 7);
  CHECK(s.best().evals_without_improvement == 1);
}
