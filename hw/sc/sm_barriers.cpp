// The Sm's CTA barriers: parts of a slot arriving, releasing the waiters, and the deadlock report when
// every live warp of a CTA waits at a barrier that can never complete.
#include <algorithm>

#include "hw/sc/sm.hpp"

namespace simtlm::hw {

// Each part of the slot arrives for its CTA warp; the slot waits until none of those warps waits any more.
bool Sm::arrive_at_barrier(uint32_t s, uint32_t pc, const Issued& issued, uint64_t now) {
  if (issued.barrier.empty()) return true;
  const IssueSlot& w = slot(s);
  const uint32_t c = w.cta;
  Cta& cta = ctas_[c];
  const uint32_t id = issued.barrier.front().second.barrier_id;
  for (const auto& [part_index, step] : issued.barrier) {
    const uint32_t warp = w.parts[part_index].warp;
    if (step.barrier_id >= ptx::CtaBarriers::kIds) {
      fail("barrier id " + std::to_string(step.barrier_id) + " out of range (0..15) in " + where(w, pc),
           true);
      return false;
    }
    if (step.barrier_id != id || (cta.barriers.waiting(warp) && cta.barriers.wait_barrier(warp) != id)) {
      fail("threads of CTA warp " + std::to_string(warp) + " wait at barriers " + std::to_string(id) +
               " and " +
               std::to_string(step.barrier_id != id ? step.barrier_id : cta.barriers.wait_barrier(warp)) +
               " at once (a warp the compactor formed reached different barriers) in " + where(w, pc),
           true);
      return false;
    }
    cta.barriers.arrive(warp, context(cta, warp).ctx, k_.fn.code[pc], pc, step);
  }
  timing_[s].at_barrier = waits_at_barrier(cta, w);
  release_barrier_waiters(c);
  unit_->barrier_arrived(s, now);
  check_deadlock(c);
  return true;
}

void Sm::release_barrier_waiters(uint32_t c) {
  Cta& cta = ctas_[c];
  if (cta.barriers.take_released().empty()) return;
  invalidate_all();
  // A slot may hold threads of several CTA warps (compaction): it goes on once none of them waits.
  for (uint32_t s = 0; s < timing_.size(); ++s) {
    const IssueSlot& w = slot(s);
    if (w.live && w.cta == c && timing_[s].at_barrier) timing_[s].at_barrier = waits_at_barrier(cta, w);
  }
}

bool Sm::waits_at_barrier(const Cta& cta, const IssueSlot& w) const {
  return std::any_of(w.parts.begin(), w.parts.end(),
                     [&cta](const Part& p) { return p.mask && cta.barriers.waiting(p.warp); });
}

void Sm::check_deadlock(uint32_t c) {
  const Cta& cta = ctas_[c];
  if (!cta.live || failed_) return;
  bool any_barrier = false;
  for (uint32_t s = 0; s < timing_.size(); ++s) {
    const IssueSlot& w = slot(s);
    if (!w.live || w.cta != c) continue;
    if (!timing_[s].at_barrier && !w.waits) return;
    any_barrier = any_barrier || timing_[s].at_barrier;
  }
  if (!any_barrier) return;
  std::string s = "deadlock: every warp of kernel " + k_.fn.name + ", CTA (" +
                  std::to_string(cta.ctx.ctaid.x) + "," + std::to_string(cta.ctx.ctaid.y) + "," +
                  std::to_string(cta.ctx.ctaid.z) + ") on SM " + std::to_string(id_) +
                  " waits at a barrier that can never complete:";
  for (uint32_t i = 0; i < cta.contexts.size(); ++i) {
    if (!cta.barriers.waiting(i)) continue;
    const uint32_t id = cta.barriers.wait_barrier(i);
    s += " warp " + std::to_string(i) + " at barrier " + std::to_string(id) + ", " +
         k_.where_pc(cta.barriers.wait_pc(i)) + " (" + std::to_string(cta.barriers.arrived(id)) + " of " +
         std::to_string(cta.barriers.expected(id)) + " threads arrived);";
  }
  fail(s, true);
}

}  // namespace simtlm::hw
