// The lines a console and train.log show, and the terminal's
// bar. Step, epoch and loss come first, numbers are rounded to 4 significant
// digits, and a run ends with one sentence naming the command to run next.
#include "catch.h"

#include "run/console_lines.h"
#include "util/diagnostic.h"

#include "run_files.h"
#include "shared.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>

using namespace runner;

TEST_CASE("numbers on the console keep 4 significant digits", "[cli]") {
  CHECK(significant(0.693147180) == "0.6931");
  CHECK(significant(0.000892857) == "0.0008929");
  CHECK(significant(2e-05) == "2e-05");
  CHECK(significant(257.905) == "257.9");
  CHECK(significant(123456.7) == "123500");
  CHECK(significant(-1.23456) == "-1.235");
  CHECK(elapsed_text(12.34) == "12.3s");
  CHECK(elapsed_text(245) == "4m05s");
  CHECK(elapsed_text(3725) == "1h02m");
}

TEST_CASE("an event line starts with its time, then step, epoch and loss", "[cli]") {
  nlohmann::json train = {{"event", "train"}, {"step", 50}, {"total_steps", 115}, {"epoch", 0},
                          {"loss", 0.693147180}, {"lr", 0.000892857}, {"samples_per_s", 257.905},
                          {"effective_batch", 16}, {"wall_time", 1764085201.25}, {"elapsed_s", 12.34}};
  std::string line = event_line(train);
  INFO(line);
  CHECK(line.rfind("2025-11-25T15:40:01Z +12.3s train step=50/115 epoch=0 loss=0.6931 ", 0) == 0);
  CHECK(line.find("lr=0.0008929") != std::string::npos);
  CHECK(line.find("samples_per_s=257.9") != std::string::npos);
  CHECK(line.find("effective_batch=16") != std::string::npos);
  CHECK(line.find("wall_time") == std::string::npos);  // shown as the time, not again
  CHECK(line.find("0.000892857") == std::string::npos);
  // Without a time (an event from an older record): the kind comes first.
  CHECK(event_line({{"event", "eval"}, {"step", 40}, {"f1", 0.81223}}) == "eval step=40 f1=0.8122");
  // The per-class tables of an evaluation stay in its record; the line shows the numbers.
  CHECK(event_line({{"event", "eval"}, {"step", 40}, {"f1", 0.81223}, {"per_class", {{"classes", {0, 1}}}}}) ==
        "eval step=40 f1=0.8122");
}

TEST_CASE("the end of a run is one sentence with the command that applies", "[cli]") {
  nlohmann::json done = {{"event", "end"}, {"status", "completed"}, {"step", 40}, {"total_steps", 40},
                         {"wall_seconds", 83.2}, {"samples_per_s", 257.905}, {"run_dir", "/runs/mrpc/20261125T154001Z-abcdef"},
                         {"best", {{"metric", "f1"}, {"value", 0.812234}, {"step", 40}, {"checkpoint", "step-00000040"}}},
                         {"final", {{"event", "eval"}, {"step", 40}, {"f1", 0.812234}, {"accuracy", 0.7031}, {"loss", 0.57121}}}};
  std::string line = end_line(done);
  INFO(line);
  CHECK(line.find("end completed step=40/40 after 1m23s (257.9 samples/s): best eval.f1=0.8122 at step 40") == 0);
  CHECK(line.find("final eval.accuracy=0.7031 eval.f1=0.8122 eval.loss=0.5712") != std::string::npos);
  CHECK(line.find("\n  see it with: runner report /runs/mrpc/20261125T154001Z-abcdef") != std::string::npos);
  CHECK(line.find('{') == std::string::npos);  // no raw JSON

  nlohmann::json stopped = {{"event", "end"}, {"status", "interrupted"}, {"signal", 2}, {"step", 25},
                            {"total_steps", 40}, {"wall_seconds", 9.5}, {"run_dir", "/runs/my run/x"}};
  line = event_line(stopped);
  INFO(line);
  CHECK(line.find("end interrupted by SIGINT step=25/40 after 9.5s") == 0);
  CHECK(line.find("\n  continue with: runner resume '/runs/my run/x'") != std::string::npos);
}

TEST_CASE("the terminal's bar shows the epoch and an evaluation under way", "[cli]") {
  BarState s;
  s.step = 20, s.total_steps = 48, s.steps_per_epoch = 16, s.has_loss = true;
  s.loss = 0.69314, s.lr = 2e-5, s.steps_per_s = 4.0;
  std::string bar = bar_text(s, 120);
  INFO(bar);
  // Epochs done, as the lines' epoch=1 says during the second: 20 / 16 = 1.25 of 3.
  CHECK(bar.find("] 20/48 epoch 1.25/3 loss 0.6931 lr 2e-05 4.00 it/s ETA 00:07") != std::string::npos);
  CHECK(bar.rfind("[========", 0) == 0);  // 24 columns wide when there is room: 24 * 20 / 48 = 10 filled
  s.evaluating = true, s.eval_batches = 14;
  bar = bar_text(s, 120);
  CHECK(bar.find("] 20/48 epoch 1.25/3 evaluating 14 batches") != std::string::npos);
  CHECK(bar.find("loss") == std::string::npos);
}

TEST_CASE("the bar fits the terminal's width, leaving its last column free", "[cli]") {
  // A bar wider than the terminal would wrap and stack a line per step.
  BarState s;
  s.step = 1234, s.total_steps = 20000, s.steps_per_epoch = 5000, s.has_loss = true;
  s.loss = 0.693147, s.lr = 1.23456e-5, s.steps_per_s = 12.5;
  std::string wide = bar_text(s, 200);
  INFO(wide);
  CHECK(wide.size() > 79);  // what an 80-column terminal wrapped
  for (int columns : {80, 60, 40, 20, 2}) {
    std::string bar = bar_text(s, columns);
    INFO(columns << ": " << bar);
    CHECK(bar.size() <= static_cast<size_t>(columns - 1));
    if (columns >= 40) CHECK(bar.find(" 1234/20000") != std::string::npos);  // the count is the last to go
  }
  std::string at80 = bar_text(s, 80);
  CHECK(at80.find("loss 0.6931") != std::string::npos);
  CHECK(at80.find(" lr ") == std::string::npos);  // the first left out
}

TEST_CASE("the terminal's width is $COLUMNS, else the terminal's own, else 80", "[cli]") {
  const char* saved = std::getenv("COLUMNS");
  std::string kept = saved ? saved : "";
  setenv("COLUMNS", "57", 1);
  CHECK(terminal_columns(-1) == 57);
  setenv("COLUMNS", "wide", 1);
  CHECK(terminal_columns(-1) == 80);  // no terminal on fd -1 either
  if (saved) setenv("COLUMNS", kept.c_str(), 1);
  else unsetenv("COLUMNS");
}

TEST_CASE("a warning event reads as the runner's other warnings do, once", "[cli]") {
  std::string line = event_line({{"event", "warning"}, {"message", "bf16 is emulated on this CPU"}});
  CHECK(line == "warning: bf16 is emulated on this CPU");
}

TEST_CASE("a library error's backtrace never reaches a message", "[cli]") {
  std::string c10 = "PyTorch is not linked with support for cuda devices\n"
                    "Exception raised from getDeviceGuardImpl at ../c10/core/impl/DeviceGuardImplInterface.h:319 "
                    "(most recent call first):\nframe #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57\n"
                    "frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&)\n";
  CHECK(without_backtrace(c10) == "PyTorch is not linked with support for cuda devices");
  CHECK(without_backtrace("two lines\nof message") == "two lines\nof message");
}

namespace {

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// What an 80-column terminal shows of each redraw: the text between carriage
// returns and newlines, without the erase-line sequence.
std::vector<std::string> screen_pieces(const std::string& out) {
  std::vector<std::string> pieces;
  std::string piece;
  for (char c : out) {
    if (c == '\r' || c == '\n') {
      pieces.push_back(piece);
      piece.clear();
    } else {
      piece += c;
    }
  }
  pieces.push_back(piece);
  for (auto& p : pieces)
    for (size_t at; (at = p.find("\033[K")) != std::string::npos;) p.erase(at, 3);
  return pieces;
}

}  // namespace

TEST_CASE("a run in an 80-column terminal redraws one bar and says each thing once", "[cli]") {
  // One bar redrawn in place; the run directory and each warning said once.
  if (!std::filesystem::exists("/usr/bin/script")) {
    WARN("no /usr/bin/script (util-linux) to give the run a terminal");
    return;
  }
  std::string dir = runner::test::tmp_dir("console-tty");
  // grad_accum beyond an epoch's batches: a warning at the start of the run.
  std::string cmd = "COLUMNS=80 " + runner::test::runner_exe() + " " + runner::test::smoke_recipe() +
                    runner::test::isolated_run_sets(dir) +
                    " --set data.max_train_examples=64 --set train.epochs=1 --set train.grad_accum=8";
  auto r = runner::test::run_command("script -qefc '" + cmd + "' /dev/null");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = runner::test::only_run_dir(dir);
  CHECK(occurrences(r.out, "run directory: " + run) == 1);
  std::vector<std::string> pieces = screen_pieces(r.out);
  CHECK(std::find(pieces.begin(), pieces.end(), run) == pieces.end());  // not again bare

  CHECK(occurrences(r.out, "warning: train.grad_accum = 8 is more than") == 1);
  CHECK(r.out.find("warning message=") == std::string::npos);
  size_t bars = 0;
  for (const std::string& piece : pieces) {
    if (piece.rfind("[", 0) != 0) continue;  // event lines may be long: they are printed once, not redrawn
    ++bars;
    INFO(piece);
    CHECK(piece.size() <= 79);
  }
  CHECK(bars >= 2);  // its one optimizer step (4 batches of 16, accumulated) and the evaluation
}

TEST_CASE("a resumed fine-tune announces no new head, and checkpoint paths read the same before and after",
          "[cli]") {
  // A resumed run never calls its restored head "newly initialised", and its
  // checkpoint paths are written the same way before and after the resume.
  std::string dir = runner::test::tmp_dir("console-resume");
  std::string sets = runner::test::isolated_run_sets(dir) +
                     " --set data.max_train_examples=32 --set data.max_eval_examples=32 --set data.max_length=32"
                     " --set data.train_batch_size=8 --set train.max_steps=4 --set train.checkpoint_every=2"
                     " --set train.eval_every=4 --set train.log_every=1";
  // A relative run.output_dir, as recipes write it: the run is started from `dir`.
  sets += " --set run.output_dir=runs";
  std::string recipe = runner::test::source_dir() + "/recipes/mrpc_minilm.toml";
  auto first = runner::test::run_command("cd " + dir + " && RUNNER_TEST_TERM_AT_STEP=2 " +
                                         runner::test::runner_exe() + " " + recipe + sets);
  INFO(first.out);
  REQUIRE(first.exit_code == 143);
  CHECK(occurrences(first.out, "newly initialised") == 1);  // the bare encoder's head, said once
  std::string run = runner::test::only_run_dir(dir, "mrpc_minilm");
  auto resumed = runner::test::run_command("cd " + dir + " && " + runner::test::runner_exe() + " resume " + run);
  INFO(resumed.out);
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.out.find("newly initialised") == std::string::npos);  // the checkpoint restored it
  std::vector<std::string> paths;
  for (const char* kind : {"checkpoint", "resume"})
    for (const auto& e : runner::test::events(run, kind)) paths.push_back(e.value("checkpoint", e.value("path", "")));
  REQUIRE(paths.size() >= 3);  // step 2's, the resume from it, step 4's
  for (const std::string& p : paths) {
    INFO(p);
    CHECK(p.rfind(run + "/checkpoints/", 0) == 0);  // absolute, under the run directory, in both sessions
  }
}
