#include "parallel/launcher.h"

#include "parallel/worker_env.h"
#include "parallel/worker_lifetime.h"

#include <fmt/format.h>

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <stdexcept>

namespace runner {
namespace {

std::atomic<int> g_forward_signal{0};

void remember_signal(int sig) { g_forward_signal = sig; }

// The read end of a pipe a worker prints to, and its line not yet ended.
struct WorkerOutput {
  int fd = -1;
  std::string partial;
};

struct Worker {
  int rank = 0;
  pid_t pid = -1;
  WorkerOutput out, err;  // its standard output and standard error
  bool running = true;
  int exit_code = 0;
};

// The launcher's standard output carries rank 0's alone, so that `DIR=$(runner
// launch ...)` gets the run directory as `runner run` prints it; everything
// else goes to `err`, each line with its rank in front.
struct LaunchStreams {
  std::ostream& out;
  std::ostream& err;
};

// Worker `local_rank` of `workers` keeps its slice of the CPUs this process may
// use, so that its threads (the runner's default: every CPU it may use) divide
// the machine instead of each taking all of it. With fewer CPUs than workers
// they share them all (and wait passively, LaunchOptions::passive_openmp_wait).
void keep_cpu_share(int local_rank, int workers) {
  cpu_set_t all;
  CPU_ZERO(&all);
  if (sched_getaffinity(0, sizeof all, &all) != 0) return;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &all)) cpus.push_back(c);
  if (workers <= 0 || cpus.size() < static_cast<size_t>(workers)) return;
  const size_t share = cpus.size() / static_cast<size_t>(workers), first = share * static_cast<size_t>(local_rank);
  cpu_set_t mine;
  CPU_ZERO(&mine);
  for (size_t k = first; k < first + share; ++k) CPU_SET(cpus[k], &mine);
  sched_setaffinity(0, sizeof mine, &mine);
}

[[noreturn]] void exec_worker(const LaunchOptions& o, const WorkerEnv& w, const LaunchAttempt& a,
                              int out_fd, int err_fd) {
  dup2(out_fd, STDOUT_FILENO);
  dup2(err_fd, STDERR_FILENO);
  if (o.divide_cpus) keep_cpu_share(w.local_rank, o.nproc_per_node);
  for (const auto& [k, v] : worker_variables(w)) setenv(k.c_str(), v.c_str(), 1);
  if (o.max_restarts > 0)
    for (const auto& [k, v] : launch_attempt_variables(a)) setenv(k.c_str(), v.c_str(), 1);
  if (o.passive_openmp_wait) setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(o.executable.c_str()));
  for (const auto& a : o.worker_args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(o.executable.c_str(), argv.data());
  fmt::print(stderr, "cannot run {}: {}\n", o.executable, std::strerror(errno));
  _exit(127);
}

Worker start_worker(const LaunchOptions& o, const LaunchAttempt& attempt, int local_rank) {
  WorkerEnv w;
  w.local_rank = local_rank;
  w.local_world_size = o.nproc_per_node;
  w.rank = o.node_rank * o.nproc_per_node + local_rank;
  w.world_size = o.nnodes * o.nproc_per_node;
  w.master_addr = o.master_addr;
  w.master_port = o.master_port;
  const pid_t launcher = getpid();
  int out[2], err[2];
  if (pipe(out) != 0 || pipe(err) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    close(out[0]);
    close(err[0]);
    die_with_launcher(launcher);
    exec_worker(o, w, attempt, out[1], err[1]);
  }
  close(out[1]);
  close(err[1]);
  Worker worker;
  worker.rank = w.rank;
  worker.pid = pid;
  worker.out.fd = out[0];
  worker.err.fd = err[0];
  return worker;
}

void print_line(const Worker& w, bool from_stdout, const std::string& line, LaunchStreams& s) {
  if (from_stdout && w.rank == 0) s.out << line << "\n";
  else s.err << fmt::format("[rank {}] {}\n", w.rank, line);
}

// Copies what a worker printed to one of its streams, a whole line at a time.
void drain(Worker& w, WorkerOutput& from, LaunchStreams& s) {
  const bool from_stdout = &from == &w.out;
  char buf[4096];
  ssize_t n = read(from.fd, buf, sizeof buf);
  if (n <= 0) {
    if (!from.partial.empty()) print_line(w, from_stdout, from.partial, s);
    from.partial.clear();
    close(from.fd);
    from.fd = -1;
    return;
  }
  from.partial.append(buf, static_cast<size_t>(n));
  size_t nl;
  while ((nl = from.partial.find('\n')) != std::string::npos) {
    print_line(w, from_stdout, from.partial.substr(0, nl), s);
    from.partial.erase(0, nl + 1);
  }
  s.out.flush();
  s.err.flush();
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return fmt::format("was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return fmt::format("exited with code {}", exit_code_of(status));
}

void signal_all(std::vector<Worker>& workers, int sig) {
  for (auto& w : workers)
    if (w.running) kill(w.pid, sig);
}

struct LaunchState {
  int first_failure = 0;
  std::string failure;  // "rank 1 (pid 42) was killed by signal 9 (Killed)"
  std::chrono::steady_clock::time_point failed_at;
  bool killed = false;
  bool interrupted = false;  // the launcher itself got SIGINT, SIGTERM or SIGHUP
};

void reap(std::vector<Worker>& workers, LaunchState& st, std::ostream& err) {
  for (auto& w : workers) {
    if (!w.running) continue;
    int status = 0;
    if (waitpid(w.pid, &status, WNOHANG) != w.pid) continue;
    w.running = false;
    w.exit_code = exit_code_of(status);
    if (w.exit_code == 0) continue;
    std::string what = fmt::format("rank {} (pid {}) {}", w.rank, w.pid, describe_exit(status));
    err << "runner launch: " << what << "\n";
    if (st.first_failure == 0) {
      st.first_failure = w.exit_code;
      st.failure = what;
      st.failed_at = std::chrono::steady_clock::now();
    }
  }
}

}  // namespace

int available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
}

bool oversubscribed(int processes, int threads, int cpus) {
  const long long per_process = threads > 0 ? threads : std::max(1, cpus / std::max(1, processes));
  return per_process * processes > cpus;
}

namespace {

// One start of the worker group, run until every worker has ended.
LaunchState run_attempt(const LaunchOptions& o, const LaunchAttempt& attempt, LaunchStreams& s) {
  std::vector<Worker> workers;
  for (int i = 0; i < o.nproc_per_node; ++i) workers.push_back(start_worker(o, attempt, i));
  LaunchState st;
  for (;;) {
    if (int sig = g_forward_signal.exchange(0)) {
      st.interrupted = true;
      signal_all(workers, sig);
    }
    std::vector<pollfd> fds;
    std::vector<std::pair<Worker*, WorkerOutput*>> owners;
    for (auto& w : workers)
      for (WorkerOutput* from : {&w.out, &w.err})
        if (from->fd >= 0) {
          fds.push_back({from->fd, POLLIN, 0});
          owners.push_back({&w, from});
        }
    if (!fds.empty() && poll(fds.data(), fds.size(), 200) > 0) {
      for (size_t i = 0; i < fds.size(); ++i)
        if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) drain(*owners[i].first, *owners[i].second, s);
    } else if (fds.empty()) {
      usleep(100000);
    }
    reap(workers, st, s.err);
    bool any_running = false, any_output = false;
    for (auto& w : workers) any_running |= w.running, any_output |= w.out.fd >= 0 || w.err.fd >= 0;
    if (!any_running && !any_output) break;
    if (st.first_failure != 0 && !st.killed && any_running &&
        std::chrono::steady_clock::now() - st.failed_at > std::chrono::seconds(o.grace_seconds)) {
      s.err << "runner launch: the remaining workers did not stop after the failure; killing them\n";
      signal_all(workers, SIGKILL);
      st.killed = true;
    }
  }
  return st;
}

// A file for rank 0 to note the run directory in, removed with this object.
struct RunDirNote {
  std::string path;
  explicit RunDirNote(bool wanted) {
    if (!wanted) return;
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/runner-launch-XXXXXX";
    int fd = mkstemp(pattern.data());
    if (fd < 0) throw std::runtime_error(fmt::format("cannot create {}: {}", pattern, std::strerror(errno)));
    close(fd);
    path = pattern;
  }
  ~RunDirNote() {
    if (!path.empty()) unlink(path.c_str());
  }
};

}  // namespace

bool restartable_failure(int exit_code) {
  return exit_code != 0 && exit_code != 2 && exit_code != 129 && exit_code != 130 && exit_code != 143;
}

int run_launch(const LaunchOptions& o, std::ostream& out, std::ostream& err) {
  LaunchStreams streams{out, err};
  struct sigaction sa {};
  sa.sa_handler = remember_signal;
  sigemptyset(&sa.sa_mask);
  // SIGHUP: a dropped ssh session stops the workers as SIGTERM does.
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  RunDirNote note(o.max_restarts > 0);
  LaunchAttempt attempt;
  attempt.max_restarts = o.max_restarts;
  attempt.run_dir_note = note.path;
  for (;; ++attempt.restart) {
    LaunchState st = run_attempt(o, attempt, streams);
    if (st.first_failure == 0 || o.max_restarts == 0) return st.first_failure;
    if (st.interrupted || !restartable_failure(st.first_failure)) {
      err << fmt::format("runner launch: not restarting: {}\n",
                         st.interrupted ? "the launcher was interrupted"
                                        : fmt::format("exit code {} is not a crash (2: bad input, "
                                                      "129/130/143: interrupted)", st.first_failure));
      return st.first_failure;
    }
    if (attempt.restart == o.max_restarts) {
      err << fmt::format("runner launch: giving up: the workers failed again after {} restart(s), the "
                         "most --max-restarts allows; the last failure: {}. Fix the cause, then continue "
                         "the run with `runner launch ... --resume auto`\n",
                         o.max_restarts, st.failure);
      return st.first_failure;
    }
    attempt.reason = st.failure;
    err << fmt::format("runner launch: restart {} of {} after: {}; the workers continue from the newest "
                       "valid checkpoint\n", attempt.restart + 1, o.max_restarts, st.failure);
  }
}

}  // namespace runner
