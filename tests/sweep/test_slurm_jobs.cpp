// `runner sweep --slurm` without a cluster: what the sweep reads from
// `scontrol -o show job`, how an ended job maps to a point's state, the job
// script each point gets, and the refusals when Slurm's commands are missing
// or sbatch refuses. tests/slurm/slurm_cluster.sh runs sweeps on a real cluster.
#include "catch.h"

#include "shared.h"
#include "sweep/point_command.h"
#include "sweep/slurm_jobs.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using runner::PointState;
using runner::SlurmJobState;

namespace {

// Two jobs as Slurm 22.05's `scontrol -o show job` prints them (fields trimmed);
// the second carries DerivedExitCode before ExitCode, which must not be mistaken for it.
const char* kScontrol =
    "JobId=41 JobName=sw:a UserId=root(0) JobState=RUNNING Reason=None Dependency=(null) ExitCode=0:0 "
    "RunTime=00:00:05\n"
    "JobId=42 JobName=sw:b UserId=root(0) JobState=FAILED Reason=NonZeroExitCode DerivedExitCode=0:0 "
    "ExitCode=2:0 RunTime=00:00:01\n"
    "JobId=43 JobName=sw:c JobState=CANCELLED Reason=None ExitCode=0:15\n";

std::string sweep_file(const std::string& dir) {
  const std::string path = dir + "/sweep.toml";
  std::ofstream(path) << "name = \"sl\"\nbase = \"" << runner::test::source_dir()
                      << "/recipes/smoke/mrpc_smoke.toml\"\nmetric = \"eval.f1\"\noutput_dir = \"" << dir
                      << "/runs\"\n[set]\n\"train.epochs\" = 1\n\"data.max_train_examples\" = 16\n"
                      << "[grid]\n\"optimizer.lr\" = [1e-4, 3e-4]\n";
  return path;
}

}  // namespace

TEST_CASE("scontrol's one-line job records are read by JobId, JobState and ExitCode", "[sweep][slurm]") {
  auto jobs = runner::parse_scontrol_jobs(kScontrol);
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[41].state == "RUNNING");
  CHECK(jobs[42].state == "FAILED");
  CHECK(jobs[42].exit_code == 2);
  CHECK(jobs[43].signal == 15);
  CHECK(runner::parse_scontrol_jobs("No jobs in the system\n").empty());
}

TEST_CASE("an ended job becomes the point's state as a child's exit would", "[sweep][slurm]") {
  using runner::exit_of_job;
  using runner::state_of_exit;
  CHECK_FALSE(runner::slurm_job_ended("PENDING"));
  CHECK_FALSE(runner::slurm_job_ended("RUNNING"));
  CHECK_FALSE(runner::slurm_job_ended("COMPLETING"));  // its processes are still stopping
  CHECK(state_of_exit(exit_of_job(1, SlurmJobState{"COMPLETED", 0, 0})) == PointState::Completed);
  // The run's own failure (exit 2: a bad recipe, exit 1: a failed run) stays a failure.
  CHECK(state_of_exit(exit_of_job(1, SlurmJobState{"FAILED", 2, 0})) == PointState::Failed);
  // A run that caught scancel's SIGTERM checkpointed and exited 143: it continues next time.
  CHECK(state_of_exit(exit_of_job(1, SlurmJobState{"FAILED", 143, 0})) == PointState::Interrupted);
  // What Slurm ended (cancelled while pending, out of time, node lost, preempted, record
  // expired) continues when the sweep starts again.
  for (const char* s : {"CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "EXPIRED"})
    CHECK(state_of_exit(exit_of_job(1, SlurmJobState{s, 0, 0})) == PointState::Interrupted);
  // A job scontrol does not know (EXPIRED) says so, where an empty log would leave the point's end unexplained.
  CHECK_THAT(runner::point_error(exit_of_job(42, SlurmJobState{"EXPIRED", 0, 0}), "/nonexistent/point.log"),
             Catch::StartsWith("Slurm's controller no longer knows job 42 (`scontrol show job 42` finds nothing"));
  CHECK(exit_of_job(42, SlurmJobState{"TIMEOUT", 0, 0}).note.empty());
  // Out of memory again at the same place: a failure, not retried by itself.
  CHECK(state_of_exit(exit_of_job(1, SlurmJobState{"OUT_OF_MEMORY", 0, 9})) == PointState::Failed);
}

TEST_CASE("a point's job script runs its command word for word with the job's CPUs as threads",
          "[sweep][slurm]") {
  const std::string dir = runner::test::tmp_dir("slurm-script");
  const std::string script = dir + "/job.sh";
  std::ofstream(script) << runner::slurm_job_script({"printf", "[%s]", "it's", "$HOME", "a b", "`x`"}, "comment");
  auto r = runner::test::run_command("env -u SLURM_CPUS_PER_TASK sh " + script);
  CHECK(r.out == "[it's][$HOME][a b][`x`][--set][run.threads=0]");
  r = runner::test::run_command("SLURM_CPUS_PER_TASK=3 sh " + script);
  CHECK(r.out == "[it's][$HOME][a b][`x`][--set][run.threads=3]");
}

TEST_CASE("--slurm without Slurm's commands, or refused by sbatch, stops with exit 2 and the fix",
          "[sweep][slurm]") {
  const std::string dir = runner::test::tmp_dir("slurm-refusals");
  const std::string sweep = sweep_file(dir);
  const std::string runner = runner::test::runner_exe();
  // No sbatch on PATH.
  fs::create_directories(dir + "/empty-bin");
  auto r = runner::test::run_command("PATH=" + dir + "/empty-bin " + runner + " sweep " + sweep + " --slurm");
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("cannot run `sbatch`") != std::string::npos);
  CHECK(r.out.find("hint:") != std::string::npos);
  // An sbatch that refuses the options: its message is passed on with the job script's path.
  fs::create_directories(dir + "/bin");
  std::ofstream(dir + "/bin/sbatch") << "#!/bin/sh\necho \"sbatch: error: invalid partition specified\" >&2\n"
                                        "exit 1\n";
  fs::permissions(dir + "/bin/sbatch", fs::perms::owner_all);
  r = runner::test::run_command("PATH=" + dir + "/bin:/usr/bin:/bin " + runner + " sweep " + sweep +
                                " --slurm --partition=nosuch");
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("sbatch did not take the job") != std::string::npos);
  CHECK(r.out.find("invalid partition") != std::string::npos);
  CHECK(r.out.find("slurm-job.sh") != std::string::npos);
  // Nothing was submitted, so no point is left running.
  auto ledger = nlohmann::json::parse(runner::test::read_text(dir + "/runs/sl/sweep_ledger.json"));
  for (const auto& [id, p] : ledger["points"].items()) CHECK(p["state"] != "running");
  // --status reads the sweep; it never submits.
  r = runner::test::run_command(runner + " sweep " + sweep + " --status --slurm");
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("--slurm submits the points") != std::string::npos);
}

namespace {

// Fake Slurm client commands in dir/bin: sbatch numbers its jobs from 101, writes
// each as a RUNNING record that scontrol prints, and warns on stderr as a real
// sbatch may; scancel marks the job CANCELLED. `sbatch_extra` runs before sbatch answers.
std::string fake_slurm(const std::string& dir, const std::string& sbatch_extra = "") {
  fs::create_directories(dir + "/bin");
  std::ofstream(dir + "/bin/sbatch")
      << "#!/bin/sh\nd=" << dir << "\nn=$(cat $d/count 2>/dev/null || echo 100); n=$((n+1)); echo $n > $d/count\n"
      << "for a in \"$@\"; do case $a in --job-name=*) name=${a#--job-name=};; esac; done\n"
      << "echo \"$name\" >> $d/submitted\n"
      << "echo \"JobId=$n JobName=$name JobState=RUNNING ExitCode=0:0\" >> $d/jobs\n" << sbatch_extra
      << "echo \"sbatch: warning: can't honor --ntasks-per-node set to 1\" >&2\necho \"$n;cluster\"\n";
  std::ofstream(dir + "/bin/scontrol") << "#!/bin/sh\ncat " << dir << "/jobs 2>/dev/null\nexit 0\n";
  std::ofstream(dir + "/bin/scancel")
      << "#!/bin/sh\nfor id; do :; done\nsed -i \"/^JobId=$id /s/JobState=RUNNING/JobState=CANCELLED/\" " << dir
      << "/jobs\n";
  for (const char* f : {"sbatch", "scontrol", "scancel"}) fs::permissions(dir + "/bin/" + f, fs::perms::owner_all);
  return "PATH=" + dir + "/bin:/usr/bin:/bin ";
}

// The sweep under `env`, sent SIGTERM after `term_after_s` (timeout keeps its exit
// code), and SIGKILLed at 120 s if it ignores that.
runner::test::CommandResult sweep_until_term(const std::string& env, const std::string& sweep, int term_after_s) {
  return runner::test::run_command("timeout -s KILL 120 timeout --preserve-status -s TERM " +
                                   std::to_string(term_after_s) + " env " + env + runner::test::runner_exe() +
                                   " sweep " + sweep + " --slurm");
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(runner::test::read_text(path));
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("--slurm reads the job id from sbatch's stdout, whatever it warns on stderr", "[sweep][slurm]") {
  const std::string dir = runner::test::tmp_dir("slurm-stderr-warning");
  const std::string env = fake_slurm(dir);
  auto r = sweep_until_term(env, sweep_file(dir), 6);
  INFO(r.out);
  CHECK(r.exit_code == 143);  // stopped by the TERM, the jobs cancelled
  CHECK(r.out.find("did not take the job") == std::string::npos);
  CHECK(lines_of(dir + "/submitted").size() == 2);  // one job for each point, none twice
  CHECK(runner::test::read_text(dir + "/jobs").find("RUNNING") == std::string::npos);
}

TEST_CASE("a sweep restarted after dying at sbatch finds the job it submitted instead of submitting again",
          "[sweep][slurm]") {
  const std::string dir = runner::test::tmp_dir("slurm-restart-finds-job");
  const std::string sweep = sweep_file(dir);
  // The first sweep is killed as sbatch answers: its ledger never records the job.
  const std::string killing = fake_slurm(dir, "[ -f " + dir + "/killed ] || { touch " + dir + "/killed; kill -9 $PPID; }\n");
  auto first = runner::test::run_command("timeout -s KILL 120 env " + killing + runner::test::runner_exe() + " sweep " +
                                         sweep + " --slurm");
  INFO(first.out);
  CHECK(first.exit_code == 137);
  REQUIRE(lines_of(dir + "/submitted").size() == 1);
  auto again = sweep_until_term(fake_slurm(dir), sweep, 6);
  INFO(again.out);
  const auto submitted = lines_of(dir + "/submitted");
  // Each point's job name once: the first point's job was found, not submitted again.
  CHECK(submitted.size() == 2);
  CHECK(std::set<std::string>(submitted.begin(), submitted.end()).size() == submitted.size());
}

TEST_CASE("a Slurm command that hangs, or leaves a child holding its output, is stopped at its time limit",
          "[sweep][slurm]") {
  for (const std::string hang : {"sleep 3600\n", "sleep 3600 &\n"}) {
    INFO(hang);
    const std::string dir = runner::test::tmp_dir("slurm-hang");
    const std::string env = fake_slurm(dir, hang) + "RUNNER_SLURM_TIMEOUT_S=2 ";
    const auto t0 = std::chrono::steady_clock::now();
    auto r = runner::test::run_command("timeout -s KILL 120 env " + env + runner::test::runner_exe() + " sweep " +
                                       sweep_file(dir) + " --slurm");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO(r.out);
    CHECK(r.exit_code == 2);
    CHECK(r.out.find("`sbatch` did not finish within 2 s") != std::string::npos);
    CHECK(seconds < 60);
  }
}

TEST_CASE("SIGTERM stops a sweep whose Slurm command hangs, within seconds", "[sweep][slurm]") {
  const std::string dir = runner::test::tmp_dir("slurm-term-in-scontrol");
  const std::string env = fake_slurm(dir);
  std::ofstream(dir + "/bin/scontrol") << "#!/bin/sh\nsleep 3600\n";
  const auto t0 = std::chrono::steady_clock::now();
  auto r = sweep_until_term(env + "RUNNER_SLURM_TIMEOUT_S=600 ", sweep_file(dir), 3);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.out);
  CHECK(r.exit_code == 143);
  CHECK(r.out.find("stopped by a signal while `scontrol` ran") != std::string::npos);
  CHECK(seconds < 30);  // 3 s to the signal, 2 s of grace, the start: far below the 600 s limit
}
