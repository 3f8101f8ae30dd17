#include "sweep/asha_file.h"

#include "sweep/asha.h"
#include "util/suggest.h"

#include <fmt/format.h>

#include <algorithm>

namespace runner {

using ojson = nlohmann::ordered_json;

const std::vector<OptionSpec>& asha_options() {
  static const std::vector<OptionSpec> specs = {
      opt::required(opt::integer("min_budget", 0, "Optimizer steps (or epochs) of the bottom rung: every "
                                                  "point runs this many before the first promotion")
                        .at_least(1)),
      opt::required(opt::integer("max_budget", 0, "Optimizer steps (or epochs) of the top rung: the whole "
                                                  "run (each point's train.max_steps, or train.epochs)")
                        .at_least(1)),
      opt::integer("eta", 3, "Reduction factor: rung k is min_budget * eta^k, and the top 1/eta "
                             "of a rung go on to the next")
          .at_least(2),
      opt::choice("unit", {"steps", "epochs"}, "steps",
                  "What the budgets count: optimizer steps, or whole epochs (each rung then ends at an "
                  "epoch's end, where the runs evaluate)"),
      opt::choice("promotion", {"asynchronous", "certain"}, "asynchronous",
                  "When a point goes on: as soon as it is in its rung's top 1/eta so far (asynchronous), or "
                  "once no point still to report there can push it out (certain: successive halving's "
                  "decisions and budget)"),
  };
  return specs;
}

ojson asha_schema() {
  ojson props = ojson::object(), required = ojson::array();
  for (const auto& o : asha_options()) {
    props[o.name] = ojson(o.json_schema());
    if (o.required) required.push_back(o.name);
  }
  return {{"type", "object"},
          {"description", "Successive halving (ASHA): points start at min_budget steps and the best 1/eta of "
                          "each rung continue their run to the next, up to max_budget; ranked by metric"},
          {"properties", props},
          {"required", required},
          {"additionalProperties", false}};
}

namespace {

// A key of [asha]: a whole number, else an error with the place and the fix.
std::optional<long long> whole_number(const Value& table, const OptionSpec& o, Diagnostics& diags) {
  const Value* v = table.find(o.name);
  if (!v) {
    if (o.required)
      diags.push_back(make_error(table.loc, "asha." + o.name, fmt::format("missing {} ({})", o.name, o.doc),
                                 fmt::format("write {} = 27 under [asha]", o.name)));
    return std::nullopt;
  }
  if (v->type == Value::Type::Int) return v->i;
  // The budgets count steps (or epochs); eta is a factor between rungs.
  const bool budget = o.name != "eta";
  diags.push_back(make_error(v->loc, "asha." + o.name,
                             fmt::format("expected a whole number{}, found {} {}", budget ? " of steps or epochs" : "",
                                         v->type_name(), v->short_str()),
                             fmt::format("write {} = {} without quotes or a decimal point", o.name, budget ? 9 : 3)));
  return std::nullopt;
}

// A string key of [asha] that names one of its declared choices; nullopt when absent.
std::optional<std::string> choice(const Value& table, const std::string& key, Diagnostics& diags) {
  const std::vector<std::string>& choices = find_option(asha_options(), key)->choices;
  const Value* v = table.find(key);
  if (!v) return std::nullopt;
  if (v->type == Value::Type::String && std::find(choices.begin(), choices.end(), v->s) != choices.end()) return v->s;
  std::string either;
  for (const auto& c : choices) either += (either.empty() ? "\"" : "\" or \"") + c;
  diags.push_back(make_error(v->loc, "asha." + key,
                             fmt::format("expected {}\", found {} {}", either, v->type_name(), v->short_str()),
                             fmt::format("write {} = \"{}\" (the default) or \"{}\"", key, choices.front(),
                                         choices.back())));
  return std::nullopt;
}

void read_choices(const Value& table, AshaSettings& a, Diagnostics& diags) {
  a.epochs = choice(table, "unit", diags) == "epochs";
  a.certain = choice(table, "promotion", diags) == "certain";
}

void check_known_keys(const Value& table, Diagnostics& diags) {
  std::vector<std::string> known;
  for (const auto& o : asha_options()) known.push_back(o.name);
  for (const auto& [key, v] : table.table) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string close = closest_match(key, known);
    diags.push_back(make_error(v.loc, "asha." + key, fmt::format("unknown [asha] key \"{}\"", key),
                               close.empty() ? "known keys: " + join(known)
                                             : fmt::format("did you mean \"{}\"?", close)));
  }
}

void check_values(const Value& table, const AshaSettings& a, Diagnostics& diags) {
  auto loc = [&](const char* key) { return table.find(key) ? table.find(key)->loc : table.loc; };
  if (a.eta < 2)
    diags.push_back(make_error(loc("eta"), "asha.eta", fmt::format("expected eta >= 2, found {}: with eta = 1 "
                                                                   "no rung is smaller than the next", a.eta),
                               "write eta = 3 (or 2, 4: the top 1/eta of each rung go on)"));
  if (a.min_budget < 1)
    diags.push_back(make_error(loc("min_budget"), "asha.min_budget",
                               fmt::format("expected at least 1 step, found {}", a.min_budget),
                               "write min_budget = 9 (steps of the bottom rung)"));
  if (a.max_budget < a.min_budget)
    diags.push_back(make_error(loc("min_budget"), "asha.min_budget",
                               fmt::format("expected min_budget <= max_budget, found {} > {}", a.min_budget,
                                           a.max_budget),
                               "lower min_budget or raise max_budget (e.g. max_budget = min_budget * eta^2)"));
}

// The search decides each point's length: train.max_steps (or train.epochs)
// is max_budget, and the other would override it or be ignored.
void refuse_budget_keys(const SweepFile& sweep, Diagnostics& diags) {
  for (const char* key : {"train.max_steps", "train.epochs"}) {
    SourceLocation where = sweep.asha_loc;
    bool set = false;
    for (const auto& a : sweep.set)
      if (a.key == key) set = true, where = a.value.loc;
    if (!set && !sweep_varies(sweep, key) && !sweep_samples(sweep, key)) continue;
    diags.push_back(make_error(where, key,
                               fmt::format("{} is set or swept beside [asha]: the search gives every point "
                                           "train.{} = max_budget and stops it at its rungs", key,
                                           sweep.asha.epochs ? "epochs" : "max_steps"),
                               "remove it, and give the run's length as [asha] max_budget"));
  }
}

}  // namespace

void read_asha(const Value& root, SweepFile& sweep, Diagnostics& diags) {
  const Value* table = root.find("asha");
  if (!table) return;
  sweep.asha_loc = table->loc;
  if (!table->is_table()) {
    diags.push_back(make_error(table->loc, "asha", fmt::format("expected a table, found {} {}", table->type_name(),
                                                               table->short_str()),
                               "write [asha] and below it min_budget = 9, max_budget = 81, eta = 3"));
    return;
  }
  const size_t before = diags.size();
  check_known_keys(*table, diags);
  AshaSettings a;
  a.enabled = true;
  std::optional<long long> lo = whole_number(*table, asha_options()[0], diags);
  std::optional<long long> hi = whole_number(*table, asha_options()[1], diags);
  std::optional<long long> eta = whole_number(*table, asha_options()[2], diags);
  read_choices(*table, a, diags);
  if (diags.size() != before) return;
  a.min_budget = *lo, a.max_budget = *hi, a.eta = eta.value_or(3);
  check_values(*table, a, diags);
  sweep.asha = a;
  refuse_budget_keys(sweep, diags);
}

std::string asha_length_set(const AshaSettings& asha) {
  return fmt::format("train.{}={}", asha.epochs ? "epochs" : "max_steps", asha.max_budget);
}

void check_asha_recipe(const SweepFile& sweep, const nlohmann::json& resolved, Diagnostics& errors) {
  if (!sweep.asha.enabled) return;
  const nlohmann::json data = resolved.value("data", nlohmann::json::object());
  if (data.value("eval_split", std::string()).empty()) {
    errors.push_back(make_error(sweep.asha_loc, "data.eval_split",
                                "[asha] ranks each rung by an evaluation, but the recipe evaluates no split "
                                "(data.eval_split is empty)",
                                "name an evaluation split: [set] \"data.eval_split\" = \"dev\""));
    return;
  }
  const nlohmann::json train = resolved.value("train", nlohmann::json::object());
  if (train.value("early_stopping_patience", 0LL) > 0) {
    errors.push_back(make_error(sweep.asha_loc, "train.early_stopping_patience",
                                fmt::format("train.early_stopping_patience = {} beside [asha]: a run that stops "
                                            "itself before its rung has no metric there to be ranked by",
                                            train.value("early_stopping_patience", 0LL)),
                                "set [set] \"train.early_stopping_patience\" = 0: the search stops the weak "
                                "points itself"));
    return;
  }
  const std::vector<long long> rungs = asha_rungs(sweep.asha);
  if (sweep.asha.epochs) {
    if (train.value("max_steps", 0LL) > 0) {
      errors.push_back(make_error(sweep.asha_loc, "train.max_steps",
                                  fmt::format("the base recipe sets train.max_steps = {}, which bounds each run "
                                              "before its epochs: [asha] unit = \"epochs\" needs runs of "
                                              "train.epochs", train.value("max_steps", 0LL)),
                                  "set [set] \"train.max_steps\" = 0, or give the budgets in steps"));
      return;
    }
    if (rungs.size() < 2 || train.value("eval_each_epoch", true)) return;
    errors.push_back(make_error(sweep.asha_loc, "train.eval_each_epoch",
                                "[asha] unit = \"epochs\" stops runs at epoch ends, but the recipe does not "
                                "evaluate there (train.eval_each_epoch = false): a run stopped at a rung would "
                                "be evaluated where the whole run is not",
                                "set [set] \"train.eval_each_epoch\" = true"));
    return;
  }
  const long long every = train.value("eval_every", 0LL);
  if (rungs.size() < 2 || (every > 0 && sweep.asha.min_budget % every == 0)) return;
  errors.push_back(make_error(
      sweep.asha_loc, "asha.min_budget",
      every > 0 ? fmt::format("min_budget = {} is not a multiple of train.eval_every = {}: a run stopped at a "
                              "rung would be evaluated where the whole run is not", sweep.asha.min_budget, every)
                : fmt::format("the recipe evaluates only per epoch (train.eval_every = 0): a run stopped at "
                              "rung step {} would be evaluated where the whole run is not", rungs.front()),
      fmt::format("set [set] \"train.eval_every\" to a divisor of min_budget (e.g. {}), or make min_budget a "
                  "multiple of it", sweep.asha.min_budget)));
}

}  // namespace runner
