#include "models/ptx/livelock.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace simtlm::ptx {

void LivelockWatch::reset() {
  armed_ = false;
  have_previous_ = have_previous_log_ = false;
  overflow_ = previous_overflow_ = false;
  log_.clear();
  previous_log_.clear();
  previous_state_.clear();
}

void LivelockWatch::log_write(uint64_t addr, const uint8_t* bytes, unsigned count) {
  if (overflow_) return;
  if (log_.size() + 2 + count / 8 > kMaxLog) {
    overflow_ = true;
    log_.clear();
    return;
  }
  log_.push_back(addr);
  for (unsigned k = 0; k < count; k += 8) {
    uint64_t word = 0;
    std::memcpy(&word, bytes + k, std::min(8u, count - k));
    log_.push_back(word);
  }
}

bool LivelockWatch::yielding_round_repeats(std::vector<uint64_t>& state) {
  const bool same_state = have_previous_ && state == previous_state_;
  if (!armed_ || !same_state) {
    // Global writes are logged only from a round that left the CTA's own state as the round before left it:
    // a kernel that makes progress (a loop counter, an accumulator) never pays for the log.
    armed_ = same_state;
    previous_state_.swap(state);  // both buffers keep their capacity for the next rounds
    have_previous_ = true;
    have_previous_log_ = false;
    log_.clear();
    overflow_ = false;
    return false;
  }
  const bool repeats = have_previous_log_ && !overflow_ && !previous_overflow_ && log_ == previous_log_;
  previous_log_ = std::move(log_);
  previous_overflow_ = overflow_;
  have_previous_log_ = true;
  log_.clear();
  overflow_ = false;
  return repeats;
}

}  // namespace simtlm::ptx
