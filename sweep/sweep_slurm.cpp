#include "sweep/sweep_slurm.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

extern char** environ;

namespace simtlm::sweep {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// A Slurm command that has not answered within this time is hung (a controller that is down answers in
// seconds with an error of its own).
constexpr double kCommandTimeoutSeconds = 120;
// squeue failing for longer than this in a row stops the sweep; shorter outages of the controller are
// ridden out (the array keeps running either way).
constexpr double kSqueueOutageSeconds = 300;

struct CommandResult {
  int exit_code = 0;  // 128 + signal when killed
  std::string out, err;
};

std::string command_text(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& a : argv) {
    if (!text.empty()) text += ' ';
    text += shell_quote(a);
  }
  return text;
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t start = 0;
  while (start < s.size() && std::isspace(static_cast<unsigned char>(s[start]))) ++start;
  return s.substr(start);
}

// Runs argv (looked up on PATH, no shell) with stdin from /dev/null and returns its exit code and output.
// Throws SlurmError when it cannot start or does not end within the timeout (it is killed then).
CommandResult run_command(const std::vector<std::string>& argv) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0)
    throw SlurmError("cannot run " + argv[0] + ": pipe: " + strerror(errno));
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    throw SlurmError("cannot run " + argv[0] + ": pipe: " + strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  std::vector<std::string> args = argv;
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  // A process group of its own: Ctrl-C on the terminal stops the sweep's waiting (stop_requested), not a
  // Slurm command halfway, whose failure would read as the cluster's.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, cargs[0], &actions, &attr, cargs.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    throw SlurmError("cannot run " + argv[0] + ": " + strerror(rc) +
                     (rc == ENOENT ? " (not on PATH: is this a Slurm submit host?)" : ""));
  }
  CommandResult result;
  const auto deadline = Clock::now() + std::chrono::duration<double>(kCommandTimeoutSeconds);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  bool timed_out = false;
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    const int n = poll(fds, 2, int(std::min<long long>(left, 1000)));
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2 && n > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      const ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
      if (got > 0) {
        sinks[i]->append(buffer, size_t(got));
      } else if (got == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  // Its output closed, the command still gets only the rest of the deadline to exit.
  while (!timed_out) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (Clock::now() >= deadline) timed_out = true;
    if (!timed_out) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (timed_out) {
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (timed_out)
    throw SlurmError("`" + command_text(argv) + "` did not answer within " +
                     std::to_string(int(kCommandTimeoutSeconds)) + " s (killed)");
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

SlurmError command_failed(const std::vector<std::string>& argv, const CommandResult& r,
                          const std::string& why) {
  std::string err = trimmed(r.err);
  if (err.empty()) err = "(no message on stderr)";
  return SlurmError("`" + command_text(argv) + "` " + why + ": " + err);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SlurmError("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> read_lines(const fs::path& path) {
  std::istringstream in(read_text(path));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!trimmed(line).empty()) lines.push_back(trimmed(line));
  return lines;
}

// The job as its job.json describes it (its stats file); just the id when that cannot be read.
JobSpec job_with_id(const fs::path& dir, const std::string& id) {
  try {
    return job_from_json(nlohmann::json::parse(read_text(job_dir(dir, id) / "job.json")));
  } catch (const std::exception&) {
    JobSpec job;
    job.id = id;
    return job;
  }
}

// One array this backend submitted (DIR/slurm/array.json names the last one).
struct Submission {
  std::string job_id;
  fs::path sub_dir;  // DIR/slurm/N
  unsigned chunk = 1;
  std::vector<std::string> ids;  // jobs.txt
};

fs::path record_path(const fs::path& dir) {
  return dir / "slurm" / "array.json";
}

std::optional<Submission> read_record(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(record_path(dir), ec)) return std::nullopt;
  Submission s;
  try {
    const nlohmann::json doc = nlohmann::json::parse(read_text(record_path(dir)));
    s.job_id = doc.at("job_id").get<std::string>();
    s.sub_dir = dir / "slurm" / doc.at("submission").get<std::string>();
    s.chunk = doc.at("chunk").get<unsigned>();
    if (s.chunk == 0) throw SlurmError("chunk 0");
    s.ids = read_lines(s.sub_dir / "jobs.txt");
  } catch (const std::exception& e) {
    throw SlurmError("cannot use " + record_path(dir).string() + ": " + e.what());
  }
  return s;
}

// The array's tasks still in squeue (pending, running, completing); empty once it has left.
std::optional<std::map<uint64_t, std::string>> queued_tasks(const std::string& job_id, std::string* error) {
  const std::vector<std::string> argv{"squeue", "-h", "-r", "-j", job_id, "-o", "%K %T"};
  const CommandResult r = run_command(argv);
  if (r.exit_code != 0) {
    // squeue refuses an id the controller has already forgotten: the array has ended.
    if (r.err.find("Invalid job id") != std::string::npos) return std::map<uint64_t, std::string>{};
    *error = command_failed(argv, r, "failed with exit code " + std::to_string(r.exit_code)).what();
    return std::nullopt;
  }
  try {
    return parse_squeue_tasks(r.out);
  } catch (const SlurmError& e) {
    throw SlurmError("`" + command_text(argv) + "` printed what is not understood: " + e.what());
  }
}

// How each task ended: scontrol while the controller remembers the job (MinJobAge), else sacct (accounting).
std::map<uint64_t, SlurmTaskEnd> task_ends(const std::string& job_id) {
  const std::vector<std::string> scontrol{"scontrol", "-o", "show", "job", job_id};
  const std::vector<std::string> sacct{"sacct", "-n", "-P", "-X", "-j", job_id, "-o", "JobID,State,ExitCode"};
  for (const auto& argv : {scontrol, sacct}) {
    const CommandResult r = run_command(argv);
    if (r.exit_code != 0) continue;  // the job forgotten (scontrol), no accounting (sacct)
    try {
      return argv[0] == "scontrol" ? parse_scontrol_tasks(r.out, job_id) : parse_sacct_tasks(r.out, job_id);
    } catch (const SlurmError& e) {
      throw SlurmError("`" + command_text(argv) + "` printed what is not understood: " + e.what());
    }
  }
  return {};
}

void sleep_unless_stopped(double seconds) {
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until && !stop_requested())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

// What the tally counts of one array's jobs while it runs.
struct Watch {
  SweepTally* tally;
  std::set<std::string> open;  // jobs of the tally without a final status yet
};

// Counts the jobs of `listed` that have ended since the last call. A lost job ("slurm" or "signal") counts
// only when `final`: until then it may still be rerun by the array (a requeued task) or by the next one.
bool absorb(const fs::path& dir, const std::set<std::string>& listed, Watch& watch, bool final) {
  bool changed = false;
  for (auto it = watch.open.begin(); it != watch.open.end();) {
    std::error_code ec;
    if (!listed.count(*it) || !fs::exists(job_dir(dir, *it) / "status.json", ec)) {
      ++it;
      continue;
    }
    const JobStatus st = read_status(dir, job_with_id(dir, *it));
    const bool lost = st.state == JobState::failed && st.cause != "simulation";
    if (st.state == JobState::missing || (lost && !final)) {
      ++it;
      continue;
    }
    ++(st.state == JobState::done ? watch.tally->done : watch.tally->failed);
    it = watch.open.erase(it);
    changed = true;
  }
  return changed;
}

// Polls until the array has left squeue (true) or a stop is requested (false).
bool wait_for_array(const fs::path& dir, const Submission& sub, const SlurmOptions& options, bool reattached,
                    Watch& watch, SweepProgress& progress) {
  double interval = options.poll_seconds;
  auto last_answer = Clock::now();
  uint64_t pending = 0, running = 0;
  const std::set<std::string> listed(sub.ids.begin(), sub.ids.end());
  for (;;) {
    std::string error;
    const auto queued = queued_tasks(sub.job_id, &error);
    if (!queued) {
      if (std::chrono::duration<double>(Clock::now() - last_answer).count() > kSqueueOutageSeconds)
        throw SlurmError(error + " (for " + std::to_string(int(kSqueueOutageSeconds)) + " s; array " +
                         sub.job_id + " may still run: `simtlm sweep --resume` re-attaches to it)");
    } else {
      last_answer = Clock::now();
    }
    bool changed = absorb(dir, listed, watch, false);
    if (queued) {
      uint64_t p = 0, r = 0;
      for (const auto& [task, state] : *queued) ++(state == "PENDING" ? p : r);
      changed = changed || p != pending || r != running;
      pending = p;
      running = r;
    }
    watch.tally->running = running;  // a task runs one job at a time
    watch.tally->note = "slurm array " + sub.job_id + (reattached ? " (re-attached)" : "") + ": " +
                        std::to_string(running) + " tasks running, " + std::to_string(pending) + " pending";
    if (queued && queued->empty()) return true;  // the caller's finish() prints the last line
    progress.update(*watch.tally, changed);
    interval = changed ? options.poll_seconds : std::min(interval * 2, options.poll_max_seconds);
    sleep_unless_stopped(interval);
    if (stop_requested()) return false;
  }
}

// After the array has ended: every job of its list that is neither done nor failed by its simulation gets
// a "slurm" status naming its task's end, so the merge reports it and --resume runs it again.
void settle(const fs::path& dir, const Submission& sub) {
  const std::map<uint64_t, SlurmTaskEnd> ends = task_ends(sub.job_id);
  for (size_t i = 0; i < sub.ids.size(); ++i) {
    const JobSpec job = job_with_id(dir, sub.ids[i]);
    const JobStatus st = read_status(dir, job);
    if (st.state == JobState::done || (st.state == JobState::failed && st.cause == "simulation")) continue;
    const uint64_t task = i / sub.chunk;
    const std::string task_name = sub.job_id + "_" + std::to_string(task);
    const auto end = ends.find(task);
    JobStatus lost_status;
    lost_status.state = JobState::failed;
    lost_status.cause = "slurm";
    if (end == ends.end()) {
      lost_status.error = "array task " + task_name + " ended in a state Slurm no longer reports";
    } else {
      const std::string& code = end->second.exit_code;
      const size_t colon = code.find(':');
      const int exit = std::atoi(code.substr(0, colon).c_str());
      const int sig = colon == std::string::npos ? 0 : std::atoi(code.substr(colon + 1).c_str());
      lost_status.exit_code = exit != 0 ? exit : sig != 0 ? 128 + sig : 0;
      lost_status.error = "array task " + task_name + " " +
                          (end->second.state == "COMPLETED" ? "completed without finishing the job"
                                                            : "ended " + end->second.state) +
                          " (exit " + code + ")";
    }
    lost_status.error += "; log: " + (sub.sub_dir / ("task_" + task_name + ".out")).string();
    write_status(dir, job.id, lost_status);
  }
}

Submission submit(const fs::path& dir, const std::vector<JobSpec>& jobs, const SlurmOptions& options) {
  const fs::path slurm_dir = dir / "slurm";
  fs::create_directories(slurm_dir);
  uint64_t n = 1;
  while (fs::exists(slurm_dir / std::to_string(n))) ++n;
  Submission sub;
  sub.sub_dir = slurm_dir / std::to_string(n);
  sub.chunk = options.chunk;
  if (sub.sub_dir.string().find('%') != std::string::npos)
    throw SlurmError("the sweep directory " + dir.string() + " holds '%', which sbatch reads as a pattern");
  fs::create_directories(sub.sub_dir);
  std::string list;
  for (const JobSpec& job : jobs) {
    // A job reruns from scratch: an old status would be taken for this array's.
    fs::create_directories(job_dir(dir, job.id));
    write_file_atomically(job_dir(dir, job.id) / "job.json", json_text(job_json(job), 2) + "\n");
    std::error_code ec;
    fs::remove(job_dir(dir, job.id) / "status.json", ec);
    sub.ids.push_back(job.id);
    list += job.id + "\n";
  }
  write_file_atomically(sub.sub_dir / "jobs.txt", list);
  const fs::path exe = options.executable.empty() ? fs::read_symlink("/proc/self/exe") : options.executable;
  write_file_atomically(sub.sub_dir / "array.sh",
                        array_script(exe, dir, sub.sub_dir / "jobs.txt", sub.chunk));
  const uint64_t tasks = (jobs.size() + sub.chunk - 1) / sub.chunk;
  std::vector<std::string> argv{"sbatch",
                                "--parsable",
                                "--job-name=simtlm-sweep",
                                "--array=0-" + std::to_string(tasks - 1),
                                "--output=" + (sub.sub_dir / "task_%A_%a.out").string(),
                                "--open-mode=append"};
  if (!options.partition.empty()) argv.push_back("--partition=" + options.partition);
  if (!options.time.empty()) argv.push_back("--time=" + options.time);
  if (!options.mem.empty()) argv.push_back("--mem=" + options.mem);
  argv.insert(argv.end(), options.sbatch_args.begin(), options.sbatch_args.end());
  argv.push_back((sub.sub_dir / "array.sh").string());
  write_file_atomically(sub.sub_dir / "sbatch.txt", command_text(argv) + "\n");
  const CommandResult r = run_command(argv);
  if (r.exit_code != 0) {
    const bool array_limit = r.err.find("array") != std::string::npos;
    throw command_failed(argv, r,
                         "failed with exit code " + std::to_string(r.exit_code) +
                             (array_limit ? " (a larger --chunk makes fewer array tasks)" : ""));
  }
  // --parsable prints "ID" or "ID;CLUSTER".
  const std::string out = trimmed(r.out);
  sub.job_id = out.substr(0, out.find(';'));
  if (sub.job_id.empty() || sub.job_id.find_first_not_of("0123456789") != std::string::npos)
    throw SlurmError("`" + command_text(argv) + "` printed no job id but '" + out + "'");
  nlohmann::ordered_json record{{"job_id", sub.job_id},
                                {"submission", sub.sub_dir.filename().string()},
                                {"chunk", sub.chunk},
                                {"tasks", tasks},
                                {"jobs", jobs.size()}};
  write_file_atomically(record_path(dir), json_text(record, 2) + "\n");
  return sub;
}

}  // namespace

std::string refuse_if_array_queued(const fs::path& dir) {
  const std::optional<Submission> previous = read_record(dir);
  if (!previous) return "";
  std::string error;
  const auto queued = queued_tasks(previous->job_id, &error);
  if (!queued)
    return "cannot tell whether Slurm array " + previous->job_id + " of " + dir.string() +
           " still runs: " + error;
  if (!queued->empty())
    throw SlurmError("Slurm array " + previous->job_id + " of a previous sweep into " + dir.string() +
                     " is still queued or running: wait for it with --backend slurm --resume, or `scancel " +
                     previous->job_id + "` first");
  return "";
}

SweepTally run_on_slurm(const fs::path& dir_in, const std::vector<JobSpec>& pending,
                        const SlurmOptions& options, SweepProgress& progress) {
  if (options.chunk == 0) throw SlurmError("--chunk must be at least 1");
  const fs::path dir = fs::absolute(dir_in).lexically_normal();
  std::vector<JobSpec> jobs;
  std::set<std::string> seen;
  for (const JobSpec& job : pending)
    if (seen.insert(job.id).second) jobs.push_back(job);
  SweepTally tally;
  tally.total = jobs.size();
  Watch watch{&tally, seen};
  auto stopped = [&](const std::string& job_id) {
    tally.running = 0;
    progress.finish(tally);
    std::cerr << "simtlm sweep: stopped waiting; Slurm array " << job_id
              << " runs on: --resume re-attaches to it, `scancel " << job_id << "` cancels it\n";
    return tally;
  };

  if (const std::optional<Submission> previous = read_record(dir)) {
    std::string error;
    const auto queued = queued_tasks(previous->job_id, &error);
    if (!queued) throw SlurmError(error);
    if (!queued->empty()) {
      if (!options.resume)
        throw SlurmError(
            "Slurm array " + previous->job_id + " of a previous sweep into " + dir.string() +
            " is still queued or running: --resume waits for it and then submits what it leaves, `scancel " +
            previous->job_id + "` cancels it");
      if (!wait_for_array(dir, *previous, options, true, watch, progress)) return stopped(previous->job_id);
      settle(dir, *previous);
      absorb(dir, std::set<std::string>(previous->ids.begin(), previous->ids.end()), watch, false);
      // What the previous array finished is not submitted again; what it lost is.
      std::erase_if(jobs, [&](const JobSpec& job) { return !watch.open.count(job.id); });
    }
  }
  if (!jobs.empty()) {
    const Submission sub = submit(dir, jobs, options);
    if (!wait_for_array(dir, sub, options, false, watch, progress)) return stopped(sub.job_id);
    settle(dir, sub);
    absorb(dir, std::set<std::string>(sub.ids.begin(), sub.ids.end()), watch, true);
  }
  tally.running = 0;
  progress.finish(tally);
  return tally;
}

int run_sweep_task(const fs::path& dir, const fs::path& list_file, unsigned index, unsigned chunk) {
  std::vector<std::string> ids;
  try {
    ids = read_lines(list_file);
  } catch (const SlurmError& e) {
    std::cerr << "simtlm sweep-task: " << e.what() << "\n";
    return 1;
  }
  if (chunk == 0 || index >= (ids.size() + chunk - 1) / chunk) {
    std::cerr << "simtlm sweep-task: task " << index << " of chunk " << chunk << " is past the " << ids.size()
              << " jobs of " << list_file.string() << "\n";
    return 1;
  }
  int exit_code = 0;
  const uint64_t first = uint64_t(index) * chunk, end = std::min<uint64_t>(ids.size(), first + chunk);
  for (uint64_t i = first; i < end && !stop_requested(); ++i) {
    const std::string& id = ids[i];
    std::cout << "job " << id << " (" << i + 1 << "/" << ids.size() << "): " << std::flush;
    try {
      const JobSpec job = job_from_json(nlohmann::json::parse(read_text(job_dir(dir, id) / "job.json")));
      if (read_status(dir, job).state == JobState::done) {
        std::cout << "done already\n";
        continue;
      }
      const JobStatus st = run_job(dir, job);
      if (st.state == JobState::done)
        std::cout << "done in " << st.seconds << " s\n";
      else if (st.state == JobState::failed)
        std::cout << "failed (" << st.cause << ", exit " << st.exit_code << "): " << st.error << "\n";
      else
        std::cout << "interrupted\n";
    } catch (const std::exception& e) {
      std::cout << "not run: " << e.what() << "\n";
      exit_code = 1;
    }
  }
  std::cout << std::flush;
  return stop_requested() ? 128 + SIGTERM : exit_code;
}

}  // namespace simtlm::sweep
