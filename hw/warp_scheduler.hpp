// Picks which resident warp of an SM issues next. The SM tells it which warps could issue this cycle; the
// scheduler only orders them, so each policy is a few lines and testable without SystemC.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace simtlm::hw {

enum class SchedulerPolicy {
  loose_round_robin,   // lrr: start after the warp that issued last
  greedy_then_oldest,  // gto: keep the last warp while it can issue, else the oldest that can
  sticky_round_robin,  // srr: keep the last warp while it can issue, else round-robin from it
  two_level,           // a small active set scheduled lrr; warps stalled on memory leave it for a FIFO
};
SchedulerPolicy parse_scheduler_policy(const std::string& name);  // "lrr", "gto", "srr", "two_level"

class WarpScheduler {
 public:
  static constexpr int kNone = -1;

  WarpScheduler(SchedulerPolicy policy, uint32_t slots, uint32_t active_set_size = 8);

  // A warp arrived in `slot`; arrival order defines age for gto and the pending FIFO of two-level.
  void add_warp(uint32_t slot);
  void remove_warp(uint32_t slot);
  // The slot to issue from among ready[slot] != 0, or kNone. Records it as the last issued.
  int pick(const std::vector<uint8_t>& ready);
  // Two-level: the warp waits on a long-latency operation and makes room in the active set.
  void long_latency_stall(uint32_t slot);

  bool in_active_set(uint32_t slot) const { return active_[slot] != 0; }

 private:
  int pick_round_robin(const std::vector<uint8_t>& ready, bool active_only) const;
  void refill_active_set();
  // Two-level, when no active warp can issue: a ready warp outside the set takes the place of an active one.
  // Without it, an active set full of warps waiting at a barrier starves the warps the barrier waits for.
  int swap_in_ready_pending(const std::vector<uint8_t>& ready);

  SchedulerPolicy policy_;
  uint32_t active_set_size_;
  std::vector<uint64_t> age_;      // arrival stamp per slot
  std::vector<uint8_t> present_;   // slot holds a warp
  std::vector<uint8_t> active_;    // two-level: slot is in the active set
  std::vector<uint32_t> pending_;  // two-level: FIFO of resident warps outside the active set
  uint32_t active_count_ = 0;
  uint64_t next_age_ = 0;
  int last_ = kNone;
};

}  // namespace simtlm::hw
