#include "sweep/sweep_store.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "sweep/sweep_file.hpp"

namespace simtlm::sweep {

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_value(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_field(v.get<std::string>());
  return csv_field(json_text(v));
}

const char* state_word(JobState s) {
  return s == JobState::done ? "done" : s == JobState::failed ? "failed" : "missing";
}

}  // namespace

void check_sweep_directory(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (!fs::exists(st)) return;
  if (!fs::is_directory(st))
    throw std::runtime_error(fmt::format("sweep directory {} is not a folder", dir.string()));
  if (fs::exists(dir / "sweep.lock", ec)) return;
  std::set<std::string> names;  // sorted: the message names the same entry every time
  for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    names.insert(it->path().filename().string());
  if (ec) throw std::runtime_error("cannot read sweep directory " + dir.string() + ": " + ec.message());
  if (names.empty()) return;
  throw std::runtime_error(
      fmt::format("{} is a non-empty folder that is not a sweep directory (it holds {} and no sweep.lock); "
                  "give a new or empty folder, or the directory of an earlier sweep, to --out",
                  dir.string(), *names.begin()));
}

SweepLock::SweepLock(const fs::path& dir) {
  check_sweep_directory(dir);
  fs::create_directories(dir);
  const fs::path path = dir / "sweep.lock";
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    close(fd_);
    fd_ = -1;
    const auto who = holder(dir);
    throw std::runtime_error(fmt::format("{} is in use by another sweep ({}); lock file {}", dir.string(),
                                         who.value_or("its holder is unknown"), path.string()));
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::time_t now = std::time(nullptr);
  char when[64] = {};
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const std::string text = fmt::format("pid {} on host {} since {}\n", getpid(), host, when);
  if (ftruncate(fd_, 0) != 0 || pwrite(fd_, text.data(), text.size(), 0) != ssize_t(text.size()))
    throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
}

SweepLock::~SweepLock() {
  if (fd_ >= 0) close(fd_);  // closing drops the flock
}

std::optional<std::string> SweepLock::holder(const fs::path& dir) {
  const fs::path path = dir / "sweep.lock";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  const bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);
  if (!held) return std::nullopt;
  std::string text = read_text(path);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text.empty() ? std::string("a process that is starting") : text;
}

void write_plan(const fs::path& dir, const std::vector<JobSpec>& jobs,
                const nlohmann::ordered_json& summary) {
  std::string lines;
  for (const JobSpec& job : jobs) lines += json_text(job_json(job)) + "\n";
  write_file_atomically(dir / "plan.jsonl", lines);
  write_file_atomically(dir / "sweep.json", json_text(summary, 2) + "\n");
}

std::vector<JobSpec> read_plan(const fs::path& dir) {
  std::istringstream in(read_text(dir / "plan.jsonl"));
  std::vector<JobSpec> jobs;
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    try {
      jobs.push_back(job_from_json(nlohmann::json::parse(line)));
    } catch (const std::exception& e) {
      throw std::runtime_error(
          fmt::format("{}:{}: not a job: {}", (dir / "plan.jsonl").string(), n, e.what()));
    }
  }
  return jobs;
}

nlohmann::ordered_json read_summary(const fs::path& dir) {
  return nlohmann::ordered_json::parse(read_text(dir / "sweep.json"));
}

std::vector<JobSpec> distinct_jobs(const std::vector<JobSpec>& plan) {
  std::set<std::string> seen;
  std::vector<JobSpec> out;
  for (const JobSpec& job : plan)
    if (seen.insert(job.id).second) out.push_back(job);
  return out;
}

size_t prune_jobs(const fs::path& dir, const std::vector<JobSpec>& plan) {
  std::set<std::string> keep;
  for (const JobSpec& job : plan) keep.insert(job.id);
  std::error_code ec;
  if (!fs::is_directory(dir / "jobs", ec)) return 0;
  std::vector<fs::path> stale;
  for (const auto& entry : fs::directory_iterator(dir / "jobs")) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.size() == 16 &&
        name.find_first_not_of("0123456789abcdef") == std::string::npos && !keep.count(name))
      stale.push_back(entry.path());
  }
  for (const fs::path& p : stale) fs::remove_all(p);
  return stale.size();
}

nlohmann::json stats_value(const nlohmann::json& doc, const std::string& dotted) {
  const nlohmann::json* at = &doc;
  std::istringstream parts(dotted);
  std::string part;
  while (std::getline(parts, part, '.')) {
    if (at->is_object()) {
      const auto it = at->find(part);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else if (at->is_array() && !part.empty() && part.find_first_not_of("0123456789") == std::string::npos &&
               part.size() < 10 && std::stoul(part) < at->size()) {
      at = &(*at)[std::stoul(part)];
    } else {
      return nullptr;
    }
  }
  return *at;
}

SweepCounts merge_results(const fs::path& dir) {
  const std::vector<JobSpec> plan = read_plan(dir);
  const nlohmann::ordered_json summary = read_summary(dir);
  const std::vector<std::string> keys = summary.value("stats", std::vector<std::string>{});
  std::string csv = "job";
  for (const std::string& axis : axis_keys()) csv.append(",").append(axis);
  csv += ",state";
  for (const std::string& k : keys) csv.append(",").append(csv_field(k));
  csv += "\n";
  std::string jsonl;
  std::string failed = "job";
  for (const std::string& axis : axis_keys()) failed.append(",").append(axis);
  failed += ",cause,exit_code,seconds,error\n";
  SweepCounts counts;
  for (const JobSpec& job : plan) {
    ++counts.jobs;
    const JobStatus status = read_status(dir, job);
    std::string axes_csv;
    for (const std::string& axis : axis_keys())
      axes_csv.append(",").append(csv_field(job.axes.value(axis, std::string())));
    csv += job.id + axes_csv + "," + state_word(status.state);
    if (status.state == JobState::done) {
      ++counts.done;
      const nlohmann::json stats =
          nlohmann::json::parse(read_text(job_dir(dir, job.id) / "out" / job.stats_file));
      for (const std::string& k : keys) csv.append(",").append(csv_value(stats_value(stats, k)));
      nlohmann::ordered_json line{{"job", job.id}, {"axes", job.axes}};
      line["stats"] = stats;
      jsonl += json_text(line) + "\n";
    } else {
      for (size_t i = 0; i < keys.size(); ++i) csv += ",";
      if (status.state == JobState::failed && !needs_run(status, false)) {
        ++counts.failed;
      } else {
        ++counts.missing;
      }
      if (status.state == JobState::failed) {
        failed += job.id + axes_csv + "," + status.cause + "," + std::to_string(status.exit_code) + "," +
                  fmt::format("{:.3f}", status.seconds) + "," + csv_field(status.error) + "\n";
      }
    }
    csv += "\n";
  }
  write_file_atomically(dir / "results.jsonl", jsonl);
  write_file_atomically(dir / "failed.csv", failed);
  write_file_atomically(dir / "results.csv", csv);
  return counts;
}

std::string status_report(const fs::path& dir) {
  if (!fs::is_regular_file(dir / "plan.jsonl")) {
    // A sweep stopped between taking its lock and writing its plan leaves only sweep.lock: a sweep directory
    // with no job yet, not an error.
    if (!fs::is_regular_file(dir / "sweep.lock"))
      throw std::runtime_error(dir.string() + " is not a sweep directory (it has no plan.jsonl)");
    std::string out =
        fmt::format("{}: no plan yet (the sweep stopped before writing plan.jsonl)\n", dir.string());
    if (const auto who = SweepLock::holder(dir)) out += "running: " + *who + "\n";
    return out;
  }
  const std::vector<JobSpec> plan = read_plan(dir);
  SweepCounts c;
  std::string failures;
  for (const JobSpec& job : plan) {
    ++c.jobs;
    const JobStatus s = read_status(dir, job);
    if (s.state == JobState::done) {
      ++c.done;
    } else if (s.state == JobState::failed && !needs_run(s, false)) {
      ++c.failed;
    } else {
      ++c.missing;
    }
    if (s.state == JobState::failed) {
      std::string axes;
      for (const std::string& axis : axis_keys()) {
        const std::string v = job.axes.value(axis, std::string());
        if (!v.empty()) axes += (axes.empty() ? "" : " ") + axis + "=" + v;
      }
      failures += fmt::format("  {} [{}] ({}): {}\n", job.id, axes, s.cause, s.error);
    }
  }
  std::string out = fmt::format("{}: {} jobs: {} done, {} failed, {} not run\n", dir.string(), c.jobs, c.done,
                                c.failed, c.missing);
  if (const auto who = SweepLock::holder(dir)) out += "running: " + *who + "\n";
  if (!failures.empty()) out += "failures:\n" + failures;
  return out;
}

}  // namespace simtlm::sweep
