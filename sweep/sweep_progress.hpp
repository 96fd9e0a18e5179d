// The progress line of a sweep on stderr: jobs done, failed and running, elapsed time and an estimate of
// the time left. Rewritten in place on a terminal; plain lines, less often, when forced onto a file.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

#include "common/progress_style.hpp"

namespace simtlm::sweep {

struct SweepTally {
  size_t total = 0;   // jobs this run has to run
  size_t done = 0;    // of them, finished
  size_t failed = 0;  // of them, failed
  size_t running = 0;
  std::string note;  // e.g. the Slurm job id and its tasks' states
};

class SweepProgress {
 public:
  // The style as for `simtlm run` (progress_style(--progress, --quiet)).
  explicit SweepProgress(ProgressStyle style, std::FILE* out = stderr);
  // Prints when enough time has passed since the last line (or `force`).
  void update(const SweepTally& tally, bool force = false);
  // The last line, ended with a newline.
  void finish(const SweepTally& tally);
  bool active() const { return active_; }
  // "12/64 done, 1 failed, 2 running; 42.0 s elapsed, ~3m10s left"
  static std::string line(const SweepTally& tally, double elapsed_seconds);

 private:
  std::FILE* out_;
  bool active_ = false;
  bool terminal_ = false;  // rewritten in place; else plain lines
  bool printed_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace simtlm::sweep
