// Dynamic warp subdivision (Meng, Tarjan and Skadron, ISCA 2010) on warp-slices, as Robust SIMD compares
// with it (robust-simd.txt, Sections II and VII). A slice divides into two splits that issue independently
// and share the slice's one stack:
// - memory: when the requests of the lanes that hit the L1 are answered while the others are outstanding,
//   the hit lanes run ahead as the second split (slot capacity + e);
// - branch: at a divergent branch both paths run interleaved, the fall-through path as the second split.
// The splits join again where the shared stack needs them together: at the next conditional branch, exit or
// reconvergence PC (a sync point). A memory split's two halves follow the same straight-line code, so they
// meet at the same sync point; the stack stays at the split PC until then. A branch split's second path ends
// at the branch's reconvergence PC or waits at a sync point inside its path, where the first split takes its
// lanes over once its own path is done. Only one second split exists per slice at a time.
#include <bit>

#include "hw/divergence/warp_slices.hpp"

namespace simtlm::hw {

bool WarpSlices::is_sync_point(uint32_t e, uint32_t pc) const {
  const Subdivision& sub = sub_[e];
  if (pc >= k_.fn.code.size()) return true;
  if (!sub.memory && pc == sub.end_pc) return true;
  if (sub.memory) {
    const std::vector<StackRow> rows = wst_.stack(e);
    if (!rows.empty() && pc == rows.back().reconvergence_pc) return true;
  }
  const ptx::Instr& in = k_.fn.code[pc];
  return (in.op == ptx::Op::bra && in.guard != ptx::kNoReg) || in.op == ptx::Op::exit ||
         in.op == ptx::Op::ret || in.op == ptx::Op::trap;
}

void WarpSlices::start_second(uint32_t e, uint64_t ready_cycle) {
  const Subdivision& sub = sub_[e];
  IssueSlot& s = slots_[capacity() + e];
  s.live = true;
  s.waits = false;
  s.cta = cta_;
  ++s.generation;
  s.parts.assign(1, Part{e, sub.lanes});
  s.pc = sub.pc;
  host_.start_slot(capacity() + e, ready_cycle, Stall::branch);
}

bool WarpSlices::memory_event(uint32_t slot, const MemoryEvent& event, uint64_t now) {
  if (event.kind == MemoryEvent::Kind::accesses_done) {
    accesses_done(slot, now);
    return true;
  }
  // Whether subdivision was on when the hits came back (handling them may end an interval and turn it off).
  const bool subdividing = dws_;
  hits_answered(slot, event.hit_lanes, now);
  return subdividing;
}

void WarpSlices::hits_answered(uint32_t slot, ptx::LaneMask hit_lanes, uint64_t now) {
  if (!dws_ || slot >= capacity() || !slots_[slot].live) return;
  const uint32_t e = slot;
  Subdivision& sub = sub_[e];
  const ptx::LaneMask running = slots_[e].parts[0].mask;
  hit_lanes &= running;
  if (sub.live || !hit_lanes || hit_lanes == running) return;
  sub = Subdivision{};
  sub.live = true;
  sub.memory = true;
  sub.lanes = hit_lanes;
  sub.pc = sub.first_pc = slots_[e].pc;
  ++wpu_.memory_splits;
  show(e);
  if (is_sync_point(e, sub.pc)) {  // nothing to run ahead on: join at once
    sub = Subdivision{};
    --wpu_.memory_splits;
    show(e);
    return;
  }
  start_second(e, now + 1);
}

void WarpSlices::split_branch(uint32_t e, uint32_t pc, ptx::LaneMask not_taken, uint32_t reconvergence_pc,
                              uint64_t now) {
  Subdivision& sub = sub_[e];
  sub = Subdivision{};
  sub.live = true;
  sub.lanes = not_taken;
  sub.pc = pc + 1;
  sub.end_pc = reconvergence_pc;
  ++wpu_.branch_splits;
  show(e);
  start_second(e, now + 1);
  if (is_sync_point(e, sub.pc)) second_step(e, sub.pc, now);
}

void WarpSlices::second_step(uint32_t e, uint32_t next_pc, uint64_t now) {
  Subdivision& sub = sub_[e];
  sub.pc = next_pc;
  slots_[capacity() + e].pc = next_pc;
  if (!is_sync_point(e, next_pc)) return;
  sub.second_waits = true;
  slots_[capacity() + e].live = false;
  host_.stop_slot(capacity() + e);
  try_join(e, now);
}

void WarpSlices::first_step(uint32_t e, uint32_t next_pc, uint64_t now) {
  Subdivision& sub = sub_[e];
  sub.first_pc = next_pc;
  slots_[e].pc = next_pc;
  if (!is_sync_point(e, next_pc)) return;
  sub.first_waits = true;
  host_.stop_slot(e);
  try_join(e, now);
}

void WarpSlices::after_stack_change(uint32_t e, uint64_t now) {
  Subdivision& sub = sub_[e];
  if (!sub.live || sub.memory || sub.first_waits) return;
  // The first split's path is done when the stack's top row is the second split's path.
  if (wst_.executing(e) != sub.lanes) return;
  sub.first_waits = true;
  host_.stop_slot(e);
  try_join(e, now);
}

void WarpSlices::accesses_done(uint32_t slot, uint64_t now) {
  if (slot >= capacity() && sub_[slot - capacity()].live) try_join(slot - capacity(), now);
}

void WarpSlices::try_join(uint32_t e, uint64_t now) {
  Subdivision& sub = sub_[e];
  if (!sub.first_waits || !sub.second_waits) return;
  // The second split's lanes join only once their own accesses are answered (accesses_done tries again).
  if (host_.waits_on_accesses(capacity() + e)) return;
  if (sub.memory && sub.first_pc != sub.pc) return;  // cannot happen on straight-line code; wait on
  const uint32_t at = sub.pc;
  sub = Subdivision{};
  ++wpu_.joins;
  // The stack catches up: the top row (the split PC, or the second path's row) goes on at the sync point,
  // popping when it is the row's reconvergence PC.
  wst_.advance(e, at);
  show(e);
  host_.start_slot(e, now + 1, Stall::branch);
  after_stack_change(e, now);
  settle(e, now);
}

}  // namespace simtlm::hw
