// `runner ls [DIR]`: the runs under DIR, newest first.
#include "report/html.h"
#include "report/report_command.h"
#include "report/run_history.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <set>

#include <sys/stat.h>

namespace runner {
namespace fs = std::filesystem;

namespace {

struct LsRow {
  nlohmann::json fields;           // what --json prints
  std::vector<std::string> cells;  // what the table prints
};

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

// The best metric as the best evaluation's companion sets report it ("eval.accuracy_mm"
// beside "eval.accuracy": MNLI's mismatched dev set), by name.
nlohmann::json best_companions(const RunHistory& r) {
  nlohmann::json out = nlohmann::json::object();
  std::string key = r.best_metric.rfind("eval.", 0) == 0 ? r.best_metric.substr(5) : r.best_metric;
  if (key.empty()) return out;
  for (const auto& [name, value] : r.best_eval.items())
    if (name.size() > key.size() + 1 && name.rfind(key + "_", 0) == 0 && value.is_number())
      out["eval." + name] = value;
  return out;
}

LsRow row_of(const RunHistory& r) {
  std::string best = r.best_value ? fmt::format("{}={:.4f}", r.best_metric, *r.best_value) : "-";
  nlohmann::json companions = best_companions(r);
  if (r.best_value)
    for (const auto& [name, value] : companions.items()) best += fmt::format(" {}={:.4f}", name, value.get<double>());
  std::optional<double> sps = r.samples_per_s();
  std::string wall = duration_text(r.wall_seconds());
  LsRow row;
  row.fields = {{"name", r.name()},          {"dir", r.dir},
                {"started_utc", r.started_utc()}, {"status", r.status()},
                {"step", r.step()},          {"total_steps", r.total_steps()},
                {"best_metric", r.best_metric}, {"best_value", optional_json(r.best_value)},
                {"best_step", r.best_step ? nlohmann::json(*r.best_step) : nlohmann::json()},
                {"best_companions", companions},
                {"samples_per_s", optional_json(sps)}, {"wall_seconds", optional_json(r.wall_seconds())},
                {"damaged_lines", r.damaged_lines}};
  row.cells = {r.name(), r.started_utc().empty() ? "-" : r.started_utc(), r.status(),
               fmt::format("{}/{}", r.step(), r.total_steps()), best,
               sps ? fmt::format("{:.1f}", *sps) : "-", wall.empty() ? "-" : wall, r.dir};
  return row;
}

// A run directory whose records cannot be read, or a folder that cannot be
// looked into, still gets a line saying so; the error is in --json.
LsRow unreadable_row(const std::string& dir, const std::string& name, const std::string& error) {
  LsRow row;
  row.fields = {{"name", name}, {"dir", dir}, {"status", "unreadable"}, {"error", error}};
  row.cells = {name, "-", "unreadable", "-", "-", "-", "-", dir};
  return row;
}

std::vector<LsRow> rows_under(const std::string& root) {
  RunDirSearch found = search_run_dirs(root);
  std::vector<LsRow> rows;
  for (const auto& dir : found.runs) {
    try {
      rows.push_back(row_of(load_run_history(dir)));
    } catch (const InputError& e) {
      std::string name = fs::path(dir).lexically_normal().parent_path().filename().string();
      rows.push_back(unreadable_row(dir, name, e.diagnostic().format()));
    } catch (const fs::filesystem_error& e) {
      std::string name = fs::path(dir).lexically_normal().parent_path().filename().string();
      rows.push_back(unreadable_row(dir, name, e.code().message()));
    }
  }
  for (const auto& folder : found.unreadable)
    rows.push_back(unreadable_row(folder.path, "(folder)", folder.path + ": cannot be read: " + folder.why));
  return rows;
}

std::string table_text(std::vector<LsRow> rows) {
  std::vector<std::string> head = {"NAME", "STARTED (UTC)", "STATUS", "STEP/TOTAL", "BEST", "SAMPLES/S", "WALL", "DIR"};
  std::vector<size_t> width(head.size());
  // Every cell comes from a record or a folder name: shown safe for a terminal.
  for (auto& r : rows)
    for (auto& cell : r.cells) cell = terminal_safe(cell);
  for (size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& r : rows) width[c] = std::max(width[c], r.cells[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c)
      out += c + 1 == cells.size() ? cells[c] : fmt::format("{:<{}}  ", cells[c], width[c]);
    return out + "\n";
  };
  std::string out = line(head);
  for (const auto& r : rows) out += line(r.cells);
  return out;
}

// Each run name once, newest first: a word a shell may offer, so a name with
// a space or a control character (which no completion could offer whole) is left out.
std::string names_text(const std::vector<LsRow>& rows) {
  std::set<std::string> seen;
  std::string out;
  for (const auto& r : rows) {
    std::string name = record_string(r.fields, "name");
    bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
      return c > ' ' && c != 0x7f && c != '\'' && c != '"' && c != '\\';
    });
    if (plain && record_string(r.fields, "status") != "unreadable" && seen.insert(name).second) out += name + "\n";
  }
  return out;
}

// Why `dir` is no folder of runs to list: "" when it is one. A symbolic link
// loop or a FIFO is named with what it is, never with the library's error.
std::string not_a_runs_folder(const std::string& dir) {
  std::error_code ec;
  fs::file_status st = fs::status(dir, ec);
  if (st.type() == fs::file_type::directory) return "";
  if (st.type() == fs::file_type::not_found) return "no such directory";
  if (ec) return "cannot be read: " + ec.message();
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0 || S_ISREG(info.st_mode)) return "expected a folder of runs, found a regular file";
  return "expected a folder of runs, found " + file_kind(info.st_mode);
}

}  // namespace

int run_ls_command(const LsOptions& o, std::ostream& out, std::ostream& err) {
  if (std::string problem = not_a_runs_folder(o.dir); !problem.empty()) {
    err << terminal_safe(fmt::format("error: {}: {}\n  hint: pass the output folder of your runs "
                                     "(run.output_dir, default runs/)\n", o.dir, problem), true);
    return 2;
  }
  std::vector<LsRow> rows = rows_under(o.dir);
  // Newest first: ISO times sort as text; a run folder's name starts with its UTC time too.
  auto key = [](const LsRow& r) {
    return record_string(r.fields, "started_utc") + " " +
           fs::path(record_string(r.fields, "dir")).filename().string();
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const LsRow& a, const LsRow& b) { return key(a) > key(b); });
  if (o.names) {
    out << names_text(rows);
  } else if (o.json) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& r : rows) all.push_back(r.fields);
    // A folder name need not be UTF-8: such bytes print as U+FFFD, never as an exception.
    // Nor can a name's ESC, U+2028 or U+202E reach a terminal that shows it.
    out << json_terminal_safe(all.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)) << "\n";
  } else if (rows.empty()) {
    out << fmt::format("no runs under {}\n", terminal_safe(o.dir));
  } else {
    out << table_text(rows);
  }
  return 0;
}

}  // namespace runner
