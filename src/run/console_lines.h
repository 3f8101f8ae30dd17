// How events read on a console and in train.log (the `console` and `text`
// loggers): one line per event that starts with its time, then its step, epoch
// and loss, numbers rounded to 4 significant digits (metrics.jsonl keeps them
// whole); the run's "end" event as one sentence that names the command to run
// next; and the live bar a terminal shows between the lines.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace runner {

// 0.693147 -> "0.6931", 2e-05 -> "2e-05", 257.905 -> "257.9", 123456.7 -> "123500".
std::string significant(double value);
// 12.34 -> "12.3s", 245 -> "4m05s", 3725 -> "1h02m".
std::string elapsed_text(double seconds);

// "2026-11-25T15:40:01Z +12.3s train step=50/115 epoch=0 loss=0.6931 grad_norm=1.234 lr=2e-05 ..."
// (the time from the event's wall_time and elapsed_s, when it has them); a
// "warning" event as "... warning: MESSAGE", as the runner's other warnings read.
std::string event_line(const nlohmann::json& event);

// The "end" event as one sentence: how the run ended, at which step, after how
// long and how fast, its best and final evaluation, and what to run next
// (`runner report DIR`, or `runner resume DIR` for a run that can continue).
std::string end_line(const nlohmann::json& end);

// What a terminal's bar shows, from the progress and train events so far.
struct BarState {
  long long step = 0, total_steps = 1, steps_per_epoch = 0;
  bool has_loss = false;
  double loss = 0.0, lr = 0.0;
  double steps_per_s = 0.0;  // since this session started
  bool evaluating = false;   // an evaluation is under way at `step`
  long long eval_batches = 0;
};
// "[======>      ] 120/2000 epoch 0.18/3 loss 0.6931 lr 2e-05 4.10 it/s ETA 07:38", or while
// evaluating "[======>      ] 120/2000 epoch 0.18/3 evaluating 14 batches ...". The
// epoch counts epochs done, as the lines' epoch=N does (N done, the (N+1)th under way).
// The text fits in `columns - 1` characters (a terminal wraps a line that fills its
// last column, and a wrapped bar can no longer be redrawn in place): the bar narrows,
// then lr, it/s and ETA are left out, in that order.
std::string bar_text(const BarState& s, int columns = 80);

// The width of the terminal on `fd`: $COLUMNS when set, else the terminal's own
// (TIOCGWINSZ), else 80.
int terminal_columns(int fd);

}  // namespace runner
