// The local backend of `simtlm sweep`: N jobs at once on this machine, each a child process.
#pragma once

#include <filesystem>
#include <vector>

#include "sweep/sweep_job.hpp"
#include "sweep/sweep_progress.hpp"

namespace simtlm::sweep {

// Runs `pending` (distinct jobs that need a run), `parallel` at a time, until all have ended or a stop is
// requested (a signal: running children are terminated and leave no status). A job that fails is recorded
// and the others go on. Throws when a job's files cannot be written (a full disk), after the running jobs
// have ended; finished jobs stay intact.
SweepTally run_local(const std::filesystem::path& dir, const std::vector<JobSpec>& pending, unsigned parallel,
                     SweepProgress& progress);

}  // namespace simtlm::sweep
