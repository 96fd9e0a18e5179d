// What a run tells a progress display (`simtlm run`'s progress line, sim/progress.*): the functional runner
// and the timing model's CTA dispatcher call it where a CTA completes, so it must not change the run: no
// statistic, no event, no allocation on the model's side. It lives here because models/ and hw/ both call it
// and neither may include the other.
#pragma once

#include <cstdint>

namespace simtlm {

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
