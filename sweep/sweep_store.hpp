// A sweep directory (docs/sweeps.md): its lock, its plan, and the tables merged from its jobs.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep_job.hpp"

namespace simtlm::sweep {

// Refuses DIR unless it does not exist, is an empty folder, or is a sweep directory (it holds sweep.lock,
// which every sweep creates first and never removes): a user's folder is never written into.
void check_sweep_directory(const std::filesystem::path& dir);

// Holds DIR/sweep.lock (flock) for the life of the object: a second sweep into DIR is refused with the
// holder's pid, host and start time. The kernel drops the lock when the process dies, however it dies.
class SweepLock {
 public:
  // Checks DIR first (check_sweep_directory).
  explicit SweepLock(const std::filesystem::path& dir);
  ~SweepLock();
  SweepLock(const SweepLock&) = delete;
  SweepLock& operator=(const SweepLock&) = delete;
  // "pid P on host H since T" when a live process holds DIR's lock, else nothing.
  static std::optional<std::string> holder(const std::filesystem::path& dir);

 private:
  int fd_ = -1;
};

// DIR/plan.jsonl (every job in product order) and DIR/sweep.json (the axes, stats keys and baseline).
void write_plan(const std::filesystem::path& dir, const std::vector<JobSpec>& jobs,
                const nlohmann::ordered_json& summary);
std::vector<JobSpec> read_plan(const std::filesystem::path& dir);
nlohmann::ordered_json read_summary(const std::filesystem::path& dir);

// The distinct jobs of a plan (two axis values may give the same inputs, hence the same id), in order.
std::vector<JobSpec> distinct_jobs(const std::vector<JobSpec>& plan);

// Removes the job directories of DIR that no job of `plan` uses (results of an older simulator or of axis
// values since removed); returns how many. Only directories named like a job id are touched.
size_t prune_jobs(const std::filesystem::path& dir, const std::vector<JobSpec>& plan);

struct SweepCounts {
  size_t jobs = 0;  // rows of the plan
  size_t done = 0;
  size_t failed = 0;   // failed by the simulation (rerun with --retry-failed)
  size_t missing = 0;  // not run, interrupted or lost
};

// Rewrites DIR/results.csv, DIR/results.jsonl and DIR/failed.csv from the plan and the jobs' files. Every
// file is replaced atomically, so a failure (a full disk) leaves the previous tables and every job intact.
SweepCounts merge_results(const std::filesystem::path& dir);

// Counts, the running sweep if any, and every failure with its error (`simtlm sweep --status DIR`).
std::string status_report(const std::filesystem::path& dir);

// The value at a dotted key ("stack.pushes", "sms.0.cycles") of a stats document, or null.
nlohmann::json stats_value(const nlohmann::json& doc, const std::string& dotted);

}  // namespace simtlm::sweep
