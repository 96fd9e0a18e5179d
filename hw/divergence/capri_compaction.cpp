#include "hw/divergence/capri_compaction.hpp"

#include <algorithm>
#include <bit>

namespace simtlm::hw {

void CapriCompaction::next_kernel() {
  BlockCompaction::next_kernel();
  if (p_.capri_clear_per_kernel) table_.clear();  // the table is indexed by the kernel's PCs
}

// The contexts start a new CTA: nothing a CTA that ran on them before counted may steer it.
void CapriCompaction::launch_cta(uint32_t cta, uint64_t linear_id, const std::vector<uint32_t>& contexts,
                                 const std::vector<ptx::LaneMask>& valid, uint64_t now) {
  for (uint32_t slot : contexts) own(slot) = OwnState{};
  rounds_[cta].clear();
  BlockCompaction::launch_cta(cta, linear_id, contexts, valid, now);
}

void CapriCompaction::branch(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) {
  if (own(slot).free) {
    free_branch(slot, pc, taken, now);
    return;
  }
  BlockCompaction::branch(slot, pc, taken, now);
}

void CapriCompaction::exit(uint32_t slot, uint32_t pc, const PartMasks& exited, uint64_t now) {
  if (own(slot).free) {
    free_exit(slot, positions_of(slot, exited), pc, now);
    return;
  }
  BlockCompaction::exit(slot, pc, exited, now);
}

void CapriCompaction::advance(uint32_t slot, uint32_t next_pc, uint64_t now) {
  OwnState& o = own(slot);
  if (o.free) {
    o.local.top().pc = next_pc;
    free_settle(slot, now);
    return;
  }
  BlockCompaction::advance(slot, next_pc, now);
}

// A warp that goes on stays on the CTA's path when its threads agree; when they split it runs the branch's
// region on its own stack, as the baseline's per-warp stack would, and rejoins the path at its end.
bool CapriCompaction::skips_synchronization(uint32_t slot, uint32_t pc, const PartMasks& taken,
                                            uint64_t now) {
  const std::vector<Part>& parts = slots_[slot].parts;
  bool all = true, none = true;
  for (size_t i = 0; i < parts.size(); ++i) {
    all = all && taken[i] == parts[i].mask;
    none = none && taken[i] == 0;
  }
  if (!skips(cta_of(slot), slot, pc, taken, !(all || none))) return false;
  ++stats_.compaction.capri_skipped;
  if (all || none) {
    advance(slot, all ? k_.fn.code[pc].target : pc + 1, now);
  } else {
    ++stats_.compaction.capri_free_regions;
    go_free(slot, pc, taken, now);
  }
  return true;
}

void CapriCompaction::resolved(Cta&, uint32_t pc, bool adequate) {
  train(pc, adequate);
}

void CapriCompaction::synchronized(Cta& cta) {
  for (uint32_t slot : cta.slots) own(slot).executions.clear();
}

void CapriCompaction::formed(Cta& cta) {
  rounds_[cta_index(cta)].clear();
}

// True when, for every CTA warp the slot holds threads of, it holds all of that warp's threads on the path: a
// warp that shares one with another warp of the path (their home lanes collided at formation) must not go its
// own way, or that CTA warp's threads would run the region as two streams, each as long as its slowest
// thread.
bool CapriCompaction::holds_its_warps_whole(const Cta& cta, uint32_t slot) const {
  for (const Part& part : slots_[slot].parts) {
    if ((cta.stack.back().mask[part.warp] & ~cta.off_path[part.warp]) != part.mask) return false;
  }
  return true;
}

// The decision of a warp at a conditional branch on the CTA's path. As warps may be at different places of
// the path (some went on before), a warp always joins a synchronization its CTA already waits at, and does
// not wait at a branch another warp has passed more often than it has (that warp will not come back to meet
// it); a warp that splits there and shares a CTA warp waits; else the table decides. The outcome of a skipped
// execution is recorded in the branch's round, which trains the table once every warp on the path has
// recorded one (or one comes back before the others: it is iterations ahead).
bool CapriCompaction::skips(Cta& cta, uint32_t slot, uint32_t pc, const PartMasks& taken, bool splits) {
  uint32_t& mine = own(slot).executions[pc];
  bool join = false, behind = false;
  uint32_t on_path = 1;  // live warps on the CTA's path (not in free mode)
  for (uint32_t other_slot : cta.slots) {
    const IssueSlot& other = slots_[other_slot];
    if (other_slot == slot || !other.live || own(other_slot).free) continue;
    ++on_path;
    join = join || (other.waits && other.pc == pc);
    const std::map<uint32_t, uint32_t>& executions = own(other_slot).executions;
    const auto it = executions.find(pc);
    behind = behind || (it != executions.end() && it->second > mine);
  }
  ++mine;
  if (join) return false;
  if (splits && !holds_its_warps_whole(cta, slot)) return false;
  ++stats_.compaction.capri_lookups;
  if (!behind && table_.predict(pc)) return false;
  Round& round = rounds_[cta_index(cta)][pc];
  const auto close = [&] {
    train(pc, compaction_pays(round.outcome));
    round.slots.clear();
  };
  if (std::find(round.slots.begin(), round.slots.end(), slot) != round.slots.end()) close();
  if (round.slots.empty()) round.outcome = CtaOutcome(static_cast<uint32_t>(cta.slots.size()));
  round.outcome.add(slots_[slot].parts, taken);
  round.slots.push_back(slot);
  if (round.slots.size() >= on_path) close();
  return true;
}

// Adequate: compacting the CTA's outcome would save a warp on one of its paths.
bool CapriCompaction::compaction_pays(const CtaOutcome& o) {
  if (!o.diverged()) return false;
  for (const std::vector<ptx::LaneMask>* path : {&o.taken, &o.not_taken}) {
    const auto warps = static_cast<size_t>(
        std::count_if(path->begin(), path->end(), [](ptx::LaneMask m) { return m != 0; }));
    if (form_warps(*path).size() < warps) return true;
  }
  return false;
}

void CapriCompaction::train(uint32_t pc, bool adequate) {
  ++stats_.compaction.capri_outcomes;
  stats_.compaction.capri_correct += table_.update(pc, adequate);
}

// Once every live warp of the CTA waits (at a synchronization or a barrier) but they cannot all meet, warps
// waiting at the path's reconvergence point leave the path (the entry below holds their threads there); if
// the rest then wait at one branch it resolves as usual, else each warp waiting at a branch runs it on a
// stack of its own (free mode). Returns true when it acted.
bool CapriCompaction::unblock(Cta& cta, uint64_t now) {
  const uint32_t r = cta.stack.back().reconvergence_pc;
  bool barrier = false, at_r = false, stale = false, branches_agree = true;
  uint32_t branch_pc = ptx::kNoTarget;
  for (uint32_t slot : cta.slots) {
    const IssueSlot& s = slots_[slot];
    if (!s.live || own(slot).free) continue;  // off the path: the path does not wait for it at a branch
    if (host_.at_barrier(slot)) {
      barrier = true;
    } else if (!s.waits) {
      return false;  // a warp still runs
    } else if (s.pc == r) {
      at_r = true;
    } else if (k_.fn.code[s.pc].op != ptx::Op::bra) {
      stale = true;  // at the reconvergence point of an entry that is no longer the top
    } else {
      branches_agree = branches_agree && (branch_pc == ptx::kNoTarget || branch_pc == s.pc);
      branch_pc = s.pc;
    }
  }
  if (stale && park_stale(cta, now)) return true;
  if (branch_pc == ptx::kNoTarget || (!at_r && !barrier && branches_agree)) return false;
  ++stats_.compaction.capri_unblocked;
  if (at_r) {
    CtaEntry& top = cta.stack.back();
    for (uint32_t slot : cta.slots) {
      IssueSlot& s = slots_[slot];
      if (!s.live || !s.waits || s.pc != r) continue;
      for (const Part& part : s.parts) top.mask[part.warp] &= ~part.mask;
      stop_waiting(slot, now);
      stop(slot);
      --cta.live_warps;
      --cta.at_sync;
    }
  }
  if (!barrier && branches_agree) {
    cta.sync_pc = branch_pc;
    cta.sync_at_branch = true;
    resolve(cta, now);
    return true;
  }
  for (const auto& [slot, generation] : live_slots(cta, true)) {
    IssueSlot& s = slots_[slot];
    if (!cta.live || !s.live || s.generation != generation || !s.waits) continue;
    if (k_.fn.code[s.pc].op != ptx::Op::bra) continue;  // waits in an entry below (park_stale)
    stop_waiting(slot, now);
    --cta.at_sync;
    go_free(slot, s.pc, sync_taken_[slot], now);
  }
  return true;
}

// The topmost entry below `below` that resumes every thread of `parts` at `pc`; cta.stack.size() when none.
size_t CapriCompaction::holder_of(const Cta& cta, uint32_t pc, const std::vector<Part>& parts, size_t below) {
  for (size_t e = below; e-- > 0;) {
    bool holds = cta.stack[e].pc == pc;
    for (const Part& part : parts) holds = holds && (cta.stack[e].mask[part.warp] & part.mask) == part.mask;
    if (holds) return e;
  }
  return cta.stack.size();
}

// A warp on the path that waits at the reconvergence point of an entry that was the top when it arrived, and
// is not any more (others pushed entries above it since), waits for that entry: its threads leave every entry
// above the one that resumes them at that PC, and the slot stops, as a warp waiting at the top's
// reconvergence point does in unblock. Taking it for a warp at a branch would run a non-branch as one and
// lose its threads. Returns true when the CTA formed again (no warp of the path was left).
bool CapriCompaction::park_stale(Cta& cta, uint64_t now) {
  const uint32_t r = cta.stack.back().reconvergence_pc;
  for (uint32_t slot : cta.slots) {
    IssueSlot& s = slots_[slot];
    if (!s.live || own(slot).free || !s.waits || host_.at_barrier(slot) || s.pc == r) continue;
    if (k_.fn.code[s.pc].op == ptx::Op::bra) continue;
    const size_t holder = holder_of(cta, s.pc, s.parts, cta.stack.size() - 1);
    if (holder == cta.stack.size()) continue;  // no entry resumes it there: leave it to the usual rules
    for (const Part& part : s.parts) {
      for (size_t e = holder + 1; e < cta.stack.size(); ++e) cta.stack[e].mask[part.warp] &= ~part.mask;
    }
    stop_waiting(slot, now);
    stop(slot);
    --cta.live_warps;
    --cta.at_sync;
    ++stats_.compaction.capri_unblocked;
  }
  if (cta.live_warps > 0) return false;
  form(cta, now);
  return true;
}

// ---- free mode: the warp handles the branch on its own stack, over its threads' positions, until it
// reconverges at the branch's reconvergence point and rejoins the CTA's path ----------------------------

ptx::LaneMask CapriCompaction::positions_of(uint32_t slot, const PartMasks& by_part) {
  const std::vector<Part>& parts = slots_[slot].parts;
  const std::vector<std::pair<uint32_t, uint32_t>>& threads = own(slot).threads;
  ptx::LaneMask positions = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    for (ptx::LaneMask m = by_part[i]; m; m &= m - 1) {
      const std::pair<uint32_t, uint32_t> t{parts[i].warp, std::countr_zero(m)};
      positions |= ptx::LaneMask{1} << (std::find(threads.begin(), threads.end(), t) - threads.begin());
    }
  }
  return positions;
}

void CapriCompaction::go_free(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) {
  OwnState& o = own(slot);
  Cta& cta = cta_of(slot);
  o.threads.clear();
  for (const Part& part : slots_[slot].parts) {
    cta.off_path[part.warp] |= part.mask;
    for (ptx::LaneMask m = part.mask; m; m &= m - 1) o.threads.emplace_back(part.warp, std::countr_zero(m));
  }
  const auto n = static_cast<uint32_t>(o.threads.size());
  o.local.reset(pc, n >= 32 ? ~ptx::LaneMask{0} : (ptx::LaneMask{1} << n) - 1);
  o.free = true;
  ++cta.free_warps;
  o.free_until = k_.info[pc].reconvergence_pc;
  o.left_stamp = cta.stamp;
  o.left_depth = cta.stack.size();
  free_branch(slot, pc, taken, now);
}

void CapriCompaction::free_branch(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) {
  const ptx::LaneMask positions = positions_of(slot, taken);
  own(slot).local.branch(pc, k_.fn.code[pc].target, positions, k_.info[pc].reconvergence_pc);
  free_settle(slot, now);
}

void CapriCompaction::free_exit(uint32_t slot, ptx::LaneMask positions, uint32_t pc, uint64_t now) {
  OwnState& o = own(slot);
  std::vector<Part> gone;
  for (ptx::LaneMask m = positions; m; m &= m - 1) {
    const auto& [warp, lane] = o.threads[std::countr_zero(m)];
    gone.push_back(Part{warp, ptx::LaneMask{1} << lane});
  }
  threads_exit(slot, gone);
  o.local.exit(pc, positions);
  free_settle(slot, now);
}

void CapriCompaction::leave(uint32_t slot, uint64_t now) {
  OwnState& o = own(slot);
  Cta& cta = cta_of(slot);
  o.free = false;
  --cta.free_warps;
  slots_[slot].parts.clear();
  stop(slot);
  if (--cta.live_warps == 0) {
    form(cta, now);
  } else {
    check(cta, now);
  }
  if (cta.live) host_.check_deadlock(cta_index(cta));
}

void CapriCompaction::rejoin(uint32_t slot, uint32_t pc, uint64_t now) {
  OwnState& o = own(slot);
  Cta& cta = cta_of(slot);
  for (const Part& part : slots_[slot].parts) cta.off_path[part.warp] &= ~part.mask;
  o.free = false;
  --cta.free_warps;
  advance(slot, pc, now);
}

// A warp that left entry i of the CTA's stack (left_depth - 1) comes back to the reconvergence point of
// whatever entry holds index i now; entries pushed above it later hold none of its threads.
bool CapriCompaction::returns_to_top(const Cta& cta) const {
  for (uint32_t slot : cta.slots) {
    const OwnState& o = own_[slot];
    if (slots_[slot].live && o.free && o.left_depth >= cta.stack.size()) return true;
  }
  return false;
}

void CapriCompaction::hand_back(uint32_t slot, size_t holder) {
  OwnState& o = own(slot);
  Cta& cta = cta_of(slot);
  for (const Part& part : slots_[slot].parts) {
    cta.off_path[part.warp] &= ~part.mask;
    for (size_t e = holder + 1; e < cta.stack.size(); ++e) cta.stack[e].mask[part.warp] &= ~part.mask;
  }
  o.local.exit(o.local.top().pc - 1, o.local.top().mask);  // leaves these positions' entries, keeping top.pc
}

// After the warp's own stack moved. When the warp is whole again (its own stack at one entry) and reaches the
// PC at which an entry of the CTA's stack resumes its threads (the one below the entry the warp left, at that
// entry's reconvergence point, or one pushed since with its masks), it is handed back: it joins the running
// path when that entry is the top (starting its region late), otherwise it stops and waits in that entry. A
// warp that reconverges where it went off rejoins the entry it left when that is still the top. A warp that
// is not whole goes on on its own stack: handing back part of it would issue its threads as two warps.
void CapriCompaction::free_settle(uint32_t slot, uint64_t now) {
  OwnState& o = own(slot);
  IssueSlot& s = slots_[slot];
  Cta& cta = cta_of(slot);
  for (;;) {
    o.local.settle();
    if (o.local.empty()) {
      leave(slot, now);
      return;
    }
    const ptx::SimtEntry& top = o.local.top();
    s.parts.clear();
    for (ptx::LaneMask m = top.mask; m; m &= m - 1) {
      const auto& [warp, lane] = o.threads[std::countr_zero(m)];
      if (s.parts.empty() || s.parts.back().warp != warp) s.parts.push_back(Part{warp, 0});
      s.parts.back().mask |= ptx::LaneMask{1} << lane;
    }
    s.pc = top.pc;
    const bool whole = o.local.depth() == 1;
    if (whole && top.pc == o.free_until && cta.stamp == o.left_stamp) {
      rejoin(slot, top.pc, now);
      return;
    }
    // The topmost entry that resumes these threads where they are.
    const size_t holder = holder_of(cta, top.pc, s.parts, cta.stack.size());
    if (holder + 1 == cta.stack.size()) {  // the running path: only a whole warp can take its place in it
      if (!whole) break;
      rejoin(slot, top.pc, now);
      return;
    }
    if (holder == cta.stack.size() || !whole) break;  // a warp is handed back whole or not at all
    hand_back(slot, holder);
  }
  if (s.pc >= k_.fn.code.size()) free_exit(slot, o.local.top().mask, s.pc, now);  // fell off the end
}

}  // namespace simtlm::hw
