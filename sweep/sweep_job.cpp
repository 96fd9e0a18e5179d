#include "sweep/sweep_job.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace simtlm::sweep {

namespace fs = std::filesystem;

namespace {

// Exit codes of a child that never became a simulation (stderr.txt not writable, exec failed): the job is
// lost to its environment, not failed by its inputs, so it runs again like a missing one.
constexpr int kExitEnvironment = 126;

std::atomic<bool> g_stop{false};
std::mutex g_children_mutex;
std::set<pid_t> g_children;

const char* state_name(JobState s) {
  switch (s) {
    case JobState::done:
      return "done";
    case JobState::failed:
      return "failed";
    case JobState::missing:
      break;
  }
  return "missing";
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The last line of the child's stderr that says something: simtlm ends with its error there.
std::string last_error_line(const fs::path& stderr_path) {
  std::istringstream lines(read_text(stderr_path));
  std::string line, last;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  if (last.size() > 500) last = last.substr(0, 500) + "...";
  return last;
}

void remove_quietly(const fs::path& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

}  // namespace

nlohmann::ordered_json job_json(const JobSpec& job) {
  return {{"id", job.id}, {"axes", job.axes}, {"argv", job.argv}, {"stats_file", job.stats_file}};
}

JobSpec job_from_json(const nlohmann::json& doc) {
  JobSpec job;
  job.id = doc.at("id").get<std::string>();
  job.axes = nlohmann::ordered_json(doc.at("axes"));
  job.argv = doc.at("argv").get<std::vector<std::string>>();
  job.stats_file = doc.value("stats_file", std::string("stats.json"));
  if (job.id.size() != 16 || job.id.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw std::runtime_error("invalid job id '" + job.id + "'");
  return job;
}

fs::path job_dir(const fs::path& dir, const std::string& id) {
  return dir / "jobs" / id;
}

JobStatus read_status(const fs::path& dir, const JobSpec& job) {
  const fs::path jd = job_dir(dir, job.id);
  JobStatus status;
  std::error_code ec;
  if (!fs::is_regular_file(jd / "status.json", ec)) return status;
  try {
    const nlohmann::json doc = nlohmann::json::parse(read_text(jd / "status.json"));
    const std::string state = doc.at("state").get<std::string>();
    status.cause = doc.value("cause", std::string());
    status.exit_code = doc.value("exit_code", 0);
    status.error = doc.value("error", std::string());
    status.seconds = doc.value("seconds", 0.0);
    if (state == "done") status.state = JobState::done;
    if (state == "failed") status.state = JobState::failed;
  } catch (const std::exception&) {
    return JobStatus{};  // a torn or foreign file: the job runs again
  }
  if (status.state == JobState::done && !fs::is_regular_file(jd / "out" / job.stats_file, ec))
    return JobStatus{};
  return status;
}

void write_status(const fs::path& dir, const std::string& id, const JobStatus& status) {
  nlohmann::ordered_json doc{{"id", id},
                             {"state", state_name(status.state)},
                             {"cause", status.cause},
                             {"exit_code", status.exit_code},
                             {"error", status.error},
                             {"seconds", status.seconds}};
  write_file_atomically(job_dir(dir, id) / "status.json", json_text(doc, 2) + "\n");
}

bool needs_run(const JobStatus& status, bool retry_failed) {
  switch (status.state) {
    case JobState::done:
      return false;
    case JobState::failed:
      return retry_failed || status.cause == "slurm" || status.cause == "signal" ||
             status.cause == "environment";
    case JobState::missing:
      break;
  }
  return true;
}

void request_stop() {
  g_stop = true;
  // Only async-signal-safe work here: the workers' children are signalled by terminate_children().
}

bool stop_requested() {
  return g_stop;
}

void terminate_children(int signal_number) {
  std::lock_guard<std::mutex> lock(g_children_mutex);
  for (pid_t pid : g_children) kill(pid, signal_number);
}

JobStatus run_job(const fs::path& dir, const JobSpec& job) {
  const fs::path jd = job_dir(dir, job.id);
  fs::create_directories(jd);
  write_file_atomically(jd / "job.json", json_text(job_json(job), 2) + "\n");
  remove_quietly(jd / "status.json");
  remove_quietly(jd / "out.partial");

  // execv of /proc/self/exe runs this very file even when a rebuild has replaced the path meanwhile (the ids
  // were hashed from it); the path is only argv[0], for ps and messages.
  std::error_code exe_error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", exe_error);
  std::vector<std::string> args{exe_error ? std::string("simtlm") : exe.string()};
  args.insert(args.end(), job.argv.begin(), job.argv.end());
  args.insert(args.end(), {"--out", (jd / "out.partial").string(), "--quiet"});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string err_path = (jd / "stderr.txt").string();

  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  {
    // Registered under the lock, so terminate_children() never misses a child that has started.
    std::lock_guard<std::mutex> lock(g_children_mutex);
    if (stop_requested()) return JobStatus{};
    // The stop signals stay blocked from fork to exec: the child must not run the sweep's handler (which
    // would swallow a SIGTERM meant to end it); it takes them with the default action once it unblocks.
    sigset_t stop_signals, previous;
    sigemptyset(&stop_signals);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stop_signals, sig);
    pthread_sigmask(SIG_BLOCK, &stop_signals, &previous);
    const pid_t parent = getpid();
    pid = fork();
    if (pid == 0) {
      // Only async-signal-safe calls until exec: the parent has other threads.
      for (int sig : {SIGINT, SIGTERM, SIGHUP}) signal(sig, SIG_DFL);
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // a sweep killed with -9 takes its runs along
      if (getppid() != parent) _exit(kExitEnvironment);
      sigprocmask(SIG_SETMASK, &previous, nullptr);
      const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int null = open("/dev/null", O_RDWR);
      if (err < 0 || null < 0) _exit(kExitEnvironment);
      dup2(null, 0);
      dup2(null, 1);
      dup2(err, 2);
      execv("/proc/self/exe", argv.data());
      const char msg[] = "simtlm sweep: error: cannot execute the simulator\n";
      (void)!write(2, msg, sizeof msg - 1);
      _exit(kExitEnvironment + 1);
    }
    const int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    if (pid < 0)
      throw std::runtime_error(std::string("cannot start a job: fork: ") + std::strerror(fork_errno));
    g_children.insert(pid);
  }
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard<std::mutex> lock(g_children_mutex);
    g_children.erase(pid);
  }
  JobStatus status;
  status.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::error_code ec;
  const bool has_stats = fs::is_regular_file(jd / "out.partial" / job.stats_file, ec);
  if (WIFSIGNALED(wstatus) && stop_requested()) {
    remove_quietly(jd / "out.partial");
    return JobStatus{};
  }
  if (has_stats) {
    // Outputs of a run whose check failed are kept for inspection; only a zero exit makes the job done.
    remove_quietly(jd / "out");
    fs::rename(jd / "out.partial", jd / "out");
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && has_stats) {
    status.state = JobState::done;
  } else {
    status.state = JobState::failed;
    const bool setup_failed =
        WIFEXITED(wstatus) && !has_stats &&
        (WEXITSTATUS(wstatus) == kExitEnvironment || WEXITSTATUS(wstatus) == kExitEnvironment + 1);
    status.cause = WIFSIGNALED(wstatus) ? "signal" : setup_failed ? "environment" : "simulation";
    status.exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    status.error = last_error_line(jd / "stderr.txt");
    if (status.error.empty())
      status.error = WIFSIGNALED(wstatus) ? "killed by signal " + std::to_string(WTERMSIG(wstatus))
                                          : "exit code " + std::to_string(status.exit_code) + ", no message";
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && !has_stats)
      status.error = "the run wrote no " + job.stats_file;
  }
  write_status(dir, job.id, status);
  return status;
}

void write_file_atomically(const fs::path& path, const std::string& text) {
  static std::atomic<unsigned> counter{0};
  const fs::path tmp =
      path.string() + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter.fetch_add(1));
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  auto fail = [&](const char* what) {
    const std::string reason = std::strerror(errno);
    if (fd >= 0) close(fd);
    unlink(tmp.c_str());
    throw std::runtime_error("cannot write " + path.string() + ": " + what + ": " + reason);
  };
  if (fd < 0) fail("open");
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write");
    done += size_t(n);
  }
  if (fsync(fd) != 0) fail("fsync");
  if (close(fd) != 0) {
    const std::string reason = std::strerror(errno);
    unlink(tmp.c_str());
    throw std::runtime_error("cannot write " + path.string() + ": close: " + reason);
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    unlink(tmp.c_str());
    throw std::runtime_error("cannot write " + path.string() + ": rename: " + reason);
  }
}

}  // namespace simtlm::sweep
