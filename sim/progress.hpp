// `simtlm run`'s progress line on stderr: CTAs done of the launch's total, the launch of a sequence, thread
// instructions, simulated cycles (timing mode), elapsed time and an estimate of the time left. The runs call
// it as CTAs complete (common/progress.hpp); it only reads the wall clock there and writes at most about five
// times a second, so it costs the run nothing measurable and changes none of its results.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "common/progress.hpp"
#include "common/progress_style.hpp"
#include "models/launch/launch.hpp"

namespace simtlm::sim {

using simtlm::duration_text;  // common/progress_style.hpp, shared with the sweep's progress line
using simtlm::progress_style;
using simtlm::ProgressStyle;

// How many kernels a launch file launches, when that is known before running: 1 for a single launch; for a
// sequence, unless a `loop` step (whose count depends on device data) is in it.
std::optional<uint64_t> planned_launches(const launch::Launch& launch);

// What one update shows.
struct ProgressState {
  uint64_t launch = 0;                   // 0, 1, ... of the run
  std::optional<uint64_t> launches = 1;  // nullopt: not known in advance
  uint64_t done = 0, total = 0;          // CTAs of this launch
  uint64_t thread_instructions = 0;      // of the whole run so far
  std::optional<uint64_t> cycle;         // timing mode: the simulated cycle
  double elapsed = 0;                    // wall seconds since the first launch started
  bool finished = false;                 // the run has ended
};

// The text of one update, without '\r' or newline, e.g. "simtlm: launch 2/7, CTAs 120/256 (46.9%), 1.2 s
// elapsed, ~1.4 s left, 12.3M thread instr, 45.6k cycles". The time left assumes the rest of the run costs
// what its done fraction did (launches of a sequence weigh alike); "?" until a CTA has completed or when the
// number of launches is unknown; "done" once the run has ended or every CTA of the last launch completed.
std::string progress_text(const ProgressState& state);

class ProgressLine : public ProgressSink {
 public:
  ProgressLine(ProgressStyle style, bool timing, std::optional<uint64_t> launches, int fd = 2);
  ~ProgressLine() override;  // erases a line still on the terminal (a run that threw)
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void launch_started(uint64_t index, uint64_t ctas) override;
  void cta_done(uint64_t done, uint64_t total, uint64_t thread_instructions, uint64_t cycle) override;
  void run_finished() override;

  // Updates written so far (the last line at the end included).
  uint64_t updates() const { return updates_; }

 private:
  using Clock = std::chrono::steady_clock;
  void show();
  void erase();
  void write_text(const std::string& text);

  const ProgressStyle style_;
  const bool timing_;
  const int fd_;
  ProgressState state_;
  uint64_t instructions_before_ = 0;  // of the launches before this one
  uint64_t launch_instructions_ = 0;  // of this launch so far
  bool started_ = false;
  Clock::time_point start_, last_shown_;
  size_t shown_width_ = 0;  // characters of the line on the terminal; 0: none shown
  size_t columns_ = 80;     // the terminal's width
  uint64_t updates_ = 0;
};

}  // namespace simtlm::sim
