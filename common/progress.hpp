// What a run tells a progress display (`simtlm run`'s progress line, sim/progress.*): the functional runner
// and the timing model's CTA dispatcher call it where a CTA completes, so it must not change the run: no
// statistic, no event, no allocation on the model's side. It lives here because models/ and hw/ both call it
// and neither may include the other.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace simtlm {

// How a progress line is shown (`simtlm run`'s, sim/progress.*, and a sweep's, sweep/sweep_progress.*).
enum class ProgressStyle {
  off,
  terminal,  // one line rewritten in place with '\r', erased at the end
  lines,     // one plain line per update and a last one at the end (stderr is a file or a pipe)
};

// --quiet wins; otherwise a terminal on stderr gets the line, and --progress forces plain lines elsewhere.
inline ProgressStyle progress_style(bool force, bool quiet) {
  if (quiet) return ProgressStyle::off;
  if (isatty(STDERR_FILENO)) return ProgressStyle::terminal;
  return force ? ProgressStyle::lines : ProgressStyle::off;
}

// A wall time for a person: "4.2 s", "2m05s", "1h02m".
inline std::string duration_text(double seconds) {
  if (seconds < 60) return fmt::format("{:.1f} s", seconds);
  const auto s = static_cast<uint64_t>(seconds);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s / 60 % 60);
}

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  // A kernel launch starts: its place in the run (0, 1, ... over a launch sequence) and its CTA count.
  virtual void launch_started(uint64_t index, uint64_t ctas) = 0;
  // `done` of the launch's `total` CTAs have completed; thread instructions of this launch so far; the
  // simulated cycle (0 in functional mode).
  virtual void cta_done(uint64_t done, uint64_t total, uint64_t thread_instructions, uint64_t cycle) = 0;
  // The whole run has ended (not called when it throws; the display's destructor cleans up then).
  virtual void run_finished() = 0;
};

}  // namespace simtlm
