// The Slurm backend of `simtlm sweep` (docs/sweeps.md, "Slurm backend"): the pending jobs as one job array
// whose task I runs `simtlm sweep-task` on the jobs of lines [I*K, I*K+K) of a list, polled with squeue
// until it ends; every job a cancelled, timed-out or failed task left unfinished gets status cause "slurm".
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sweep/sweep_job.hpp"
#include "sweep/sweep_progress.hpp"

namespace simtlm::sweep {

// A Slurm command that cannot be run, fails, hangs or prints what cannot be parsed; the message names the
// command and quotes its stderr.
class SlurmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SlurmOptions {
  std::string partition;  // empty: the cluster's default
  std::string time;       // --time of each array task; empty: the partition's default
  std::string mem;        // --mem of each array task; empty: the cluster's default
  unsigned chunk = 1;     // jobs per array task
  bool resume = false;    // re-attach to DIR's array job if it is still queued or running
  // squeue is asked every poll_seconds while something changes, backing off to poll_max_seconds.
  double poll_seconds = 0.5;
  double poll_max_seconds = 10;
  std::vector<std::string> sbatch_args;  // further sbatch options as they are ("--account=A")
  std::filesystem::path executable;      // the simtlm the tasks run; empty: this program
};

// Submits `pending` (distinct jobs that need a run) as a job array, waits for it, and records every job that
// did not finish (cancelled, timed out, node failure) as failed with cause "slurm". Returns the tally.
// Each submission lives in DIR/slurm/N/ (array.sh, jobs.txt, sbatch.txt, the tasks' logs task_JOB_I.out);
// DIR/slurm/array.json names the last. If that array is still in squeue, `resume` waits for it first and then
// submits only what it left; without `resume` that is an error. A stop request (a signal) ends the wait
// but not the array, which --resume re-attaches to. Throws SlurmError when a Slurm command fails.
SweepTally run_on_slurm(const std::filesystem::path& dir, const std::vector<JobSpec>& pending,
                        const SlurmOptions& options, SweepProgress& progress);

// For the local backend: throws when DIR's last Slurm array is still queued or running (both would run the
// same jobs into the same directories). Returns a warning when squeue cannot tell, else "".
std::string refuse_if_array_queued(const std::filesystem::path& dir);

// One array task (`simtlm sweep-task`): the jobs whose ids are on lines [index * chunk, index * chunk +
// chunk) of `list`, one after another, skipping those already finished; one line per job on stdout. Returns
// the process exit code: 0 when every job ran (a failed simulation is a result), 1 when one could not be run
// (a bad list, an unreadable job.json), 143 when stopped by a signal (Slurm's cancel or time limit).
int run_sweep_task(const std::filesystem::path& dir, const std::filesystem::path& list, unsigned index,
                   unsigned chunk);

// The parts below are exposed for tests.

// How an array task ended, as scontrol or sacct report it.
struct SlurmTaskEnd {
  std::string state;      // COMPLETED, CANCELLED, TIMEOUT, FAILED, OUT_OF_MEMORY, NODE_FAIL, ...
  std::string exit_code;  // "code:signal"
};

// Task indexes of an array specification: "0-3,5,7-11:2%4" -> 0 1 2 3 5 7 9 11 (the %throttle ignored).
// Throws SlurmError on anything else.
std::vector<uint64_t> parse_array_indexes(const std::string& spec);

// `scontrol -o show job ID`: one record a line of "Key=Value" words; records of other jobs are ignored.
std::map<uint64_t, SlurmTaskEnd> parse_scontrol_tasks(const std::string& text, const std::string& array_job);

// `sacct -n -P -X -j ID -o JobID,State,ExitCode`: "ID_3|COMPLETED|0:0", "ID_[4-6]|CANCELLED by 0|0:0".
std::map<uint64_t, SlurmTaskEnd> parse_sacct_tasks(const std::string& text, const std::string& array_job);

// `squeue -h -r -j ID -o "%K %T"`: task index -> state, for the tasks still queued or running.
std::map<uint64_t, std::string> parse_squeue_tasks(const std::string& text);

// A word for POSIX sh: unchanged when it is plain, else in single quotes.
std::string shell_quote(const std::string& word);

// The job script of an array: runs `simtlm sweep-task` on its task index.
std::string array_script(const std::filesystem::path& executable, const std::filesystem::path& dir,
                         const std::filesystem::path& list_file, unsigned chunk);

}  // namespace simtlm::sweep
