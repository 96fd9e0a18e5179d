// The progress line of a sweep on stderr: jobs done, failed and running, elapsed time and an estimate of
// the time left. Rewritten in place on a terminal; plain lines, less often, when forced onto a file.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace simtlm::sim {

enum class ProgressMode { automatic, forced, quiet };

struct SweepTally {
  size_t total = 0;   // jobs this run has to run
  size_t done = 0;    // of them, finished
  size_t failed = 0;  // of them, failed
  size_t running = 0;
  std::string note;  // e.g. the Slurm job id and its tasks' states
};

class SweepProgress {
 public:
  SweepProgress(ProgressMode mode, std::FILE* out = stderr);
  // Prints when enough time has passed since the last line (or `force`).
  void update(const SweepTally& tally, bool force = false);
  // The last line, ended with a newline.
  void finish(const SweepTally& tally);
  bool active() const { return active_; }
  // "12/64 done, 1 failed, 2 running; 0:42 elapsed, ~3:10 left"
  static std::string line(const SweepTally& tally, double elapsed_seconds);

 private:
  std::FILE* out_;
  bool active_ = false;
  bool terminal_ = false;
  bool printed_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

// "1:02:03" or "4:05".
std::string clock_text(double seconds);

}  // namespace simtlm::sim
