// Proves a CTA livelocked in the functional runner: when two consecutive scheduling rounds in which every
// warp that ran yielded at a backward branch end in exactly the same state (registers, local frames, SIMT
// stacks, warp states, shared memory) and wrote exactly the same global values to the same addresses, the
// CTA is back where it was one round earlier. The runner is deterministic and runs one CTA at a time, so it
// would repeat that round forever: a spin lock held by a lane of the spinning warp (fine with sm_70's
// independent thread scheduling, a livelock on a reconvergence stack), or a flag nobody will set. Without
// this a run only stops at the instruction budget, after minutes. Anything that changes (a counter, %clock
// read into a register, a value written) keeps it silent, so it never stops a CTA that makes progress.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace simtlm::ptx {

class LivelockWatch {
 public:
  // Forgets everything: a new CTA, or a round in which some warp did not yield.
  void reset();
  // True while the runner must report global writes (log_write): once a yielding round ended in the same
  // CTA state as the one before.
  bool logging() const { return armed_; }
  // A global location after a store or atomic of the current round wrote it.
  void log_write(uint64_t addr, const uint8_t* bytes, unsigned count);
  // Ends a round in which every warp that ran yielded; `state` is the CTA's state after it. True when the
  // round repeated the previous one exactly. May swap `state` with the kept copy, so the caller's buffer and
  // this one are reused round after round without allocating.
  bool yielding_round_repeats(std::vector<uint64_t>& state);

 private:
  static constexpr size_t kMaxLog = size_t(1) << 20;  // words; a longer round is not compared
  bool armed_ = false;
  bool have_previous_ = false, have_previous_log_ = false;
  bool overflow_ = false, previous_overflow_ = false;
  std::vector<uint64_t> log_, previous_log_, previous_state_;
};

}  // namespace simtlm::ptx
