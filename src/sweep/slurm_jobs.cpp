#include "sweep/slurm_jobs.h"

#include "util/numbers.h"
#include "util/synced_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <sstream>

namespace runner {

namespace {

// The value of `key` in one `scontrol -o` line ("JobState=RUNNING ..."), or "".
std::string field(const std::string& line, const std::string& key) {
  std::istringstream words(line);
  std::string w;
  while (words >> w)
    if (w.size() > key.size() && w.compare(0, key.size() + 1, key + "=") == 0) return w.substr(key.size() + 1);
  return "";
}

// The leading whole number of `text` ("42;cluster" -> 42), or -1.
long leading_number(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;
  size_t end = i;
  while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
  if (end == i || end - i > 18) return -1;
  return std::stol(text.substr(i, end - i));
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

std::string sh_quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// How long a Slurm client command may take: a controller answers in seconds,
// and one that does not must not hang the sweep. RUNNER_SLURM_TIMEOUT_S sets it.
double slurm_time_limit() {
  const char* v = std::getenv("RUNNER_SLURM_TIMEOUT_S");
  std::string why;
  return v && *v ? parse_number(v, why, 0.1, 86400).value_or(60) : 60;
}

// A Slurm client command's run; a hung or interrupted one is a SlurmError with the fix.
CommandOutput bounded_slurm_command(const std::vector<std::string>& argv) {
  const double limit = slurm_time_limit();
  CommandOutput out = run_command(argv, limit, [] { return pending_stop_signal() != 0; });
  if (out.timed_out)
    throw SlurmError(fmt::format("`{}` did not finish within {} s and was stopped\n  hint: check that the Slurm "
                                 "controller answers (`scontrol ping`); RUNNER_SLURM_TIMEOUT_S sets the limit",
                                 argv[0], limit));
  if (out.stopped)
    throw SlurmError(fmt::format("stopped by a signal while `{}` ran; the sweep's ledger is saved: run the sweep "
                                 "again to continue",
                                 argv[0]));
  return out;
}

// The same, and a missing command is a SlurmError with the fix too.
CommandOutput slurm_command(const std::vector<std::string>& argv) {
  CommandOutput out = bounded_slurm_command(argv);
  if (!out.started)
    throw SlurmError(fmt::format("cannot run `{}`: it is not on PATH\n  hint: --slurm submits with Slurm's client "
                                 "commands (sbatch, scontrol, scancel); run the sweep on a node that has them",
                                 argv[0]));
  return out;
}

// The job named `name` that Slurm still holds (not ended), or -1: a restarted
// sweep finds the job it submitted before it could record it.
long live_job_named(const std::string& name) {
  const CommandOutput out = bounded_slurm_command({"scontrol", "-o", "show", "job"});
  if (!out.started || out.exit_code != 0) return -1;  // sbatch, next, says what is missing
  std::istringstream lines(out.out);
  std::string line;
  long found = -1;
  while (std::getline(lines, line))
    if (field(line, "JobName") == name && !slurm_job_ended(field(line, "JobState")))
      found = std::max(found, leading_number(field(line, "JobId")));
  return found;
}

}  // namespace

std::map<long, SlurmJobState> parse_scontrol_jobs(const std::string& text) {
  std::map<long, SlurmJobState> jobs;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const long id = leading_number(field(line, "JobId"));
    if (id < 0) continue;
    SlurmJobState s;
    s.state = field(line, "JobState");
    const std::string exit = field(line, "ExitCode");  // "status:signal"
    const size_t colon = exit.find(':');
    if (colon != std::string::npos) {
      s.exit_code = static_cast<int>(std::max(0L, leading_number(exit.substr(0, colon))));
      s.signal = static_cast<int>(std::max(0L, leading_number(exit.substr(colon + 1))));
    }
    jobs[id] = s;
  }
  return jobs;
}

bool slurm_job_ended(const std::string& state) {
  static const char* kEnded[] = {"COMPLETED", "FAILED",  "CANCELLED",     "TIMEOUT", "PREEMPTED",
                                 "NODE_FAIL", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "EXPIRED"};
  return std::find(std::begin(kEnded), std::end(kEnded), state) != std::end(kEnded);
}

ChildExit exit_of_job(long job, const SlurmJobState& s) {
  ChildExit e;
  e.pid = job;
  if (s.state == "COMPLETED" || s.state == "FAILED" || s.state == "OUT_OF_MEMORY") {
    e.exit_code = s.exit_code != 0 ? s.exit_code : (s.signal ? 128 + s.signal : 0);
    if (s.state != "COMPLETED" && e.exit_code == 0) e.exit_code = 1;  // failed, whatever the status
    if (s.state == "OUT_OF_MEMORY") e.exit_code = 137;  // not resumed: it would run out again
    return e;
  }
  e.exit_code = 128 + SIGTERM;  // Slurm ended it: the point continues when the sweep starts again
  if (s.state == "EXPIRED")
    e.note = fmt::format("Slurm's controller no longer knows job {} (`scontrol show job {}` finds nothing: it "
                         "ended longer ago than the controller's MinJobAge, or runs on another cluster); the "
                         "point continues from its run's newest checkpoint at the next `runner sweep`",
                         job, job);
  return e;
}

std::string slurm_job_script(const std::vector<std::string>& command, const std::string& comment) {
  std::string script = "#!/bin/sh\n# " + comment + "\nexec";
  for (const auto& word : command) script += " " + sh_quote(word);
  return script + " --set \"run.threads=${SLURM_CPUS_PER_TASK:-0}\"\n";
}

long SlurmJobs::submit(const std::vector<std::string>& command, const std::string& script_path,
                       const std::string& log_path, const std::string& name) {
  write_file_synced(script_path, slurm_job_script(command, "written by `runner sweep --slurm`: " + name));
  std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=" + name, "--output=" + log_path,
                                   "--open-mode=append"};
  argv.insert(argv.end(), options_.begin(), options_.end());
  argv.push_back(script_path);
  if (const long known = live_job_named(name); known >= 0) return known;
  const CommandOutput out = slurm_command(argv);
  // --parsable prints "id" or "id;cluster" on stdout; stderr may carry warnings.
  const long id = out.exit_code == 0 ? leading_number(out.out) : -1;
  if (id < 0)
    throw SlurmError(fmt::format("sbatch did not take the job of {} (exit {}): {}\n  hint: check the sbatch "
                                 "options after --slurm; the job script is {}",
                                 name, out.exit_code, first_line(out.err.empty() ? out.out : out.err),
                                 script_path));
  return id;
}

std::map<long, SlurmJobState> SlurmJobs::states(const std::vector<long>& jobs) const {
  const CommandOutput out = slurm_command({"scontrol", "-o", "show", "job"});
  std::map<long, SlurmJobState> known = parse_scontrol_jobs(out.out), result;
  // A controller that does not answer leaves every job as it was.
  if (out.exit_code != 0 && known.empty()) return result;
  for (long job : jobs) {
    auto it = known.find(job);
    result[job] = it != known.end() ? it->second : SlurmJobState{"EXPIRED", 0, 0};
  }
  return result;
}

void SlurmJobs::stop(const std::vector<long>& jobs) const {
  for (const auto& [job, s] : states(jobs)) {
    const std::string id = std::to_string(job);
    if (s.state == "PENDING") slurm_command({"scancel", id});
    else slurm_command({"scancel", "--full", "--signal=TERM", id});
  }
}

}  // namespace runner
