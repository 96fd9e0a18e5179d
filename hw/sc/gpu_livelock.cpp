// The timing model's livelock watch (docs/reliability.md, "Long runs and endless runs"). A kernel that never
// ends is stopped by what it does, not by how long it has run: the watchdog (gpu_watchdog.cpp) catches one in
// which nothing happens, and this check one that keeps issuing without getting anywhere.
//
// Every livelock_period() cycles each SM says whether every live issue slot issued since the last check
// (slots that wait for other threads, at a barrier or for their CTA's compaction, excepted) and how many
// stores and atomics changed a shared or global value. When, over one interval, every such slot issued and
// no value changed and no CTA started or finished, the GPU-wide architectural state (each resident CTA's
// registers, local frames, call records, barriers and shared memory, each SM's issue slots and its
// divergence unit's state) is compared with the one taken at the previous check under the same conditions.
// Equal, the kernel is livelocked: global memory stayed constant, so each warp's next steps depend only on
// its own state and that constant memory, whatever the interleaving; every warp that can run ran and came
// back to where it was, so it will do so again, forever. A kernel that makes progress changes something (a
// register, a value in memory) and is never stopped; the state is only taken when no value changed.
#include <fmt/format.h>

#include <algorithm>

#include "hw/sc/gpu.hpp"
#include "hw/sc/reports.hpp"

namespace simtlm::hw {

uint64_t Gpu::livelock_period() const {
  return std::max<uint64_t>(1000, p_.watchdog_cycles / 10);
}

// Two independent 64-bit hashes of the state (a false match has a chance of about 2^-128 per pair): the
// states of a streak of checks are kept as hashes, not copies of every register of the GPU.
Gpu::StateHash Gpu::state_hash(const std::vector<uint64_t>& words) {
  uint64_t a = 0x243f6a8885a308d3ull, b = 0x13198a2e03707344ull;
  auto mix = [](uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  for (const uint64_t w : words) {
    a = mix(a ^ w) + 0x9e3779b97f4a7c15ull;
    b = (b ^ mix(w + 0x632be59bd9b4e019ull)) * 0xff51afd7ed558ccdull + (b >> 29);
  }
  return {mix(a ^ words.size()), mix(b + words.size())};
}

void Gpu::arm_livelock() {
  livelock_seen_.clear();
  livelock_changes_ = ~uint64_t{0};
  for (auto& sm : sms_) sm->livelock_probe();  // starts the first interval
  livelock_due_ = now_cycle() + livelock_period();
}

bool Gpu::livelock_check(uint64_t now) {
  if (finished() || !error_.empty()) {
    livelock_due_ = ~uint64_t{0};
    return !error_.empty();
  }
  livelock_due_ = now + livelock_period();
  bool quiet = true, any_issued = false;
  uint64_t changes = next_cta_ + done_ctas_;
  for (auto& sm : sms_) {
    const Sm::LivelockProbe p = sm->livelock_probe();
    quiet = quiet && p.supported && p.all_issued;
    any_issued = any_issued || p.any_issued;
    changes += p.changes;
  }
  const bool still = quiet && any_issued && changes == livelock_changes_;
  livelock_changes_ = changes;
  if (!still) {
    livelock_seen_.clear();
    return false;
  }
  livelock_scratch_.clear();
  for (const auto& sm : sms_) sm->livelock_state(livelock_scratch_);
  const StateHash h = state_hash(livelock_scratch_);
  const auto earlier = std::find_if(livelock_seen_.begin(), livelock_seen_.end(),
                                    [&h](const auto& seen) { return seen.first == h; });
  if (earlier != livelock_seen_.end()) {
    std::string where;
    for (const auto& sm : sms_) where += sm->describe_livelock();
    livelock_due_ = ~uint64_t{0};
    stop(fmt::format("livelock in kernel {} ({} of {} CTAs done, {} still running): at cycle {} the GPU is "
                     "exactly where it was {} cycles earlier (every register, stack, shared and global "
                     "value), every warp that could run issued meanwhile and no store changed a value, so "
                     "the kernel can never finish (a lock held by a lane of the warp that spins on it needs "
                     "sm_70's independent thread scheduling, which a reconvergence stack does not give; or "
                     "a flag nobody sets):{}",
                     k_.fn.name, done_ctas_, total_ctas_, next_cta_ - done_ctas_, now, now - earlier->second,
                     where),
         true, report::kLivelock);
    return true;
  }
  // The checks fall anywhere in a loop's iteration, so the state is compared with every state since the
  // streak began (up to kLivelockKept checks back): in a loop of n states one of them repeats within n + 1.
  if (livelock_seen_.size() == kLivelockKept) livelock_seen_.erase(livelock_seen_.begin());
  livelock_seen_.emplace_back(h, now);
  return false;
}

}  // namespace simtlm::hw
