// `runner sweep --slurm` without a cluster: what the sweep reads from
// `scontrol -o show job`, how an ended job maps to a point's state, the job
// script each point gets, and the refusals when Slurm's commands are missing
// or sbatch refuses. tests/slurm/slurm_cluster.sh runs sweeps on a real cluster.
#include "catch.h"

#include "shared.h"
#include "sweep/point_command.h"
#include "sweep/slurm_jobs.h"

#include <nlohmann/json.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>

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
