// One job of a sweep: a child `simtlm run` (or `compare`) into DIR/jobs/ID/, and its status file. Both
// backends run jobs through run_job: the local one from its workers, a Slurm array task one after another.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace simtlm::sweep {

struct JobSpec {
  std::string id;                         // 16 hex digits: a hash of every input (sweep_file.hpp)
  nlohmann::ordered_json axes;            // axis -> value name
  std::vector<std::string> argv;          // the simtlm command line without the program and --out
  std::string stats_file = "stats.json";  // the document results take from the job's out/
};

nlohmann::ordered_json job_json(const JobSpec& job);
JobSpec job_from_json(const nlohmann::json& doc);

enum class JobState { missing, done, failed };

// What DIR/jobs/ID/status.json says. `cause` is "simulation" (the run failed: rerun only with
// --retry-failed), "slurm", "signal" or "environment" (the job was lost, not its inputs' fault: killed, its
// array task ended, the child could not start; rerun like a missing one).
struct JobStatus {
  JobState state = JobState::missing;
  std::string cause;
  int exit_code = 0;
  std::string error;
  double seconds = 0;
};

std::filesystem::path job_dir(const std::filesystem::path& dir, const std::string& id);

// The status of a job (missing when it has no status file or its stats are gone).
JobStatus read_status(const std::filesystem::path& dir, const JobSpec& job);
// Written atomically: a crash leaves the old status or the new one.
void write_status(const std::filesystem::path& dir, const std::string& id, const JobStatus& status);

// True when the job must run: missing, lost, or failed and retry_failed.
bool needs_run(const JobStatus& status, bool retry_failed);

// Runs the job to its end as a child process of `executable` (default: this program) and writes its status.
// Returns the status; never throws for a failing simulation. A job interrupted by stop_requested() (the
// child killed by a signal while the sweep stops) leaves no status, so it counts as missing.
JobStatus run_job(const std::filesystem::path& dir, const JobSpec& job);

// Set from a signal handler: running children are sent SIGTERM and no further job starts.
void request_stop();
bool stop_requested();
// Sends the signal to every child run_job has running (not from a signal handler: it takes a lock).
void terminate_children(int signal_number);

// Writes `text` to `path` through a temporary file and a rename (throws with the path on failure).
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

// The JSON text of a sweep's files. Bytes that are not UTF-8 (in a file name a glob matched, or a value of
// the sweep file) become U+FFFD instead of an exception after the sweep has started (found by fuzz_sweep).
template <class Json>
std::string json_text(const Json& doc, int indent = -1) {
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace simtlm::sweep
