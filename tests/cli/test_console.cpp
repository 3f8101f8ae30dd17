// Issue 28, item 4: the lines a console and train.log show, and the terminal's
// bar. Step, epoch and loss come first, numbers are rounded to 4 significant
// digits, and a run ends with one sentence naming the command to run next.
#include "catch.h"

#include "run/console_lines.h"
#include "util/diagnostic.h"

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
  s.step = 20, s.total_steps = 48, s.epoch = 1, s.steps_per_epoch = 16, s.has_loss = true;
  s.loss = 0.69314, s.lr = 2e-5, s.steps_per_s = 4.0;
  std::string bar = bar_text(s);
  INFO(bar);
  CHECK(bar.find("] 20/48 epoch 2/3 loss 0.6931 lr 2e-05 4.00 it/s ETA 00:07") != std::string::npos);
  s.evaluating = true, s.eval_batches = 14;
  bar = bar_text(s);
  CHECK(bar.find("] 20/48 epoch 2/3 evaluating 14 batches") != std::string::npos);
  CHECK(bar.find("loss") == std::string::npos);
}

TEST_CASE("a library error's backtrace never reaches a message", "[cli]") {
  std::string c10 = "PyTorch is not linked with support for cuda devices\n"
                    "Exception raised from getDeviceGuardImpl at ../c10/core/impl/DeviceGuardImplInterface.h:319 "
                    "(most recent call first):\nframe #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57\n"
                    "frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&)\n";
  CHECK(without_backtrace(c10) == "PyTorch is not linked with support for cuda devices");
  CHECK(without_backtrace("two lines\nof message") == "two lines\nof message");
}
