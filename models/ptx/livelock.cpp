#include "models/ptx/livelock.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace simtlm::ptx {

void LivelockWatch::reset() {
  armed_ = false;
  have_previous_ = false;
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

bool LivelockWatch::yielding_round_repeats(std::vector<uint64_t> state) {
  if (!armed_) {  // the writes of the first yielding round were not logged: start with the next one
    armed_ = true;
    log_.clear();
    overflow_ = false;
    return false;
  }
  const bool repeats = have_previous_ && !overflow_ && !previous_overflow_ && state == previous_state_ &&
                       log_ == previous_log_;
  previous_state_ = std::move(state);
  previous_log_ = std::move(log_);
  previous_overflow_ = overflow_;
  have_previous_ = true;
  log_.clear();
  overflow_ = false;
  return repeats;
}

}  // namespace simtlm::ptx
