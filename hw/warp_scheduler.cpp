#include "hw/warp_scheduler.hpp"

#include <algorithm>
#include <stdexcept>

namespace simtlm::hw {

SchedulerPolicy parse_scheduler_policy(const std::string& name) {
  if (name == "lrr") return SchedulerPolicy::loose_round_robin;
  if (name == "gto") return SchedulerPolicy::greedy_then_oldest;
  if (name == "srr") return SchedulerPolicy::sticky_round_robin;
  if (name == "two_level") return SchedulerPolicy::two_level;
  throw std::invalid_argument("unknown warp scheduler policy '" + name + "'");
}

WarpScheduler::WarpScheduler(SchedulerPolicy policy, uint32_t slots, uint32_t active_set_size)
    : policy_(policy),
      active_set_size_(std::max<uint32_t>(1, active_set_size)),
      age_(slots, 0),
      present_(slots, 0),
      active_(slots, 0) {}

void WarpScheduler::add_warp(uint32_t slot) {
  present_.at(slot) = 1;
  age_[slot] = next_age_++;
  if (policy_ != SchedulerPolicy::two_level) return;
  pending_.push_back(slot);
  refill_active_set();
}

void WarpScheduler::remove_warp(uint32_t slot) {
  present_.at(slot) = 0;
  if (active_[slot]) {
    active_[slot] = 0;
    --active_count_;
  }
  pending_.erase(std::remove(pending_.begin(), pending_.end(), slot), pending_.end());
  if (last_ == int(slot)) last_ = kNone;
  if (policy_ == SchedulerPolicy::two_level) refill_active_set();
}

void WarpScheduler::long_latency_stall(uint32_t slot) {
  if (policy_ != SchedulerPolicy::two_level || !active_.at(slot)) return;
  active_[slot] = 0;
  --active_count_;
  pending_.push_back(slot);
  refill_active_set();
}

void WarpScheduler::refill_active_set() {
  // The stalled warp went to the back of the FIFO, so another warp (if any) takes its place first.
  while (active_count_ < active_set_size_ && !pending_.empty()) {
    const uint32_t slot = pending_.front();
    pending_.erase(pending_.begin());
    active_[slot] = 1;
    ++active_count_;
  }
}

int WarpScheduler::pick_round_robin(const std::vector<uint8_t>& ready, bool active_only) const {
  const int n = int(present_.size());
  for (int i = 1; i <= n; ++i) {
    const int slot = ((last_ == kNone ? -1 : last_) + i + n) % n;
    if (present_[slot] && ready[slot] && (!active_only || active_[slot])) return slot;
  }
  return kNone;
}

int WarpScheduler::swap_in_ready_pending(const std::vector<uint8_t>& ready) {
  const auto waiting =
      std::find_if(pending_.begin(), pending_.end(), [&](uint32_t slot) { return ready[slot]; });
  if (waiting == pending_.end()) return kNone;
  const uint32_t slot = *waiting;
  pending_.erase(waiting);
  // No active warp can issue (the caller found none), so any of them may leave; the lowest slot does.
  for (uint32_t out = 0; out < active_.size() && active_count_ >= active_set_size_; ++out) {
    if (!active_[out]) continue;
    active_[out] = 0;
    --active_count_;
    pending_.push_back(out);
  }
  active_[slot] = 1;
  ++active_count_;
  return int(slot);
}

int WarpScheduler::pick(const std::vector<uint8_t>& ready) {
  int chosen = kNone;
  const bool sticky =
      policy_ == SchedulerPolicy::greedy_then_oldest || policy_ == SchedulerPolicy::sticky_round_robin;
  if (sticky && last_ != kNone && present_[last_] && ready[last_]) {
    chosen = last_;
  } else if (policy_ == SchedulerPolicy::greedy_then_oldest) {
    for (size_t slot = 0; slot < present_.size(); ++slot) {
      if (present_[slot] && ready[slot] && (chosen == kNone || age_[slot] < age_[chosen])) chosen = int(slot);
    }
  } else {
    chosen = pick_round_robin(ready, policy_ == SchedulerPolicy::two_level);
    if (chosen == kNone && policy_ == SchedulerPolicy::two_level) chosen = swap_in_ready_pending(ready);
  }
  if (chosen != kNone) last_ = chosen;
  return chosen;
}

}  // namespace simtlm::hw
