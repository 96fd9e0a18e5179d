#include "hw/divergence/capri_compaction.hpp"

#include <algorithm>
#include <bit>

namespace simtlm::hw {

void CapriCompaction::next_kernel() {
  BlockCompaction::next_kernel();
  // The predictor is per PC of the kernel: sized again on first use.
  counter_.clear();
  skipped_.clear();
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

// A warp whose threads split always waits for compaction (see skips); one whose threads agree asks the
// predictor, and when it skips it stays on the CTA's path, so compaction inside the region still happens.
bool CapriCompaction::skips_synchronization(uint32_t slot, uint32_t pc, const PartMasks& taken,
                                            uint64_t now) {
  const std::vector<Part>& parts = slots_[slot].parts;
  bool all = true, none = true;
  for (size_t i = 0; i < parts.size(); ++i) {
    all = all && taken[i] == parts[i].mask;
    none = none && taken[i] == 0;
  }
  if (!(all || none) || !skips(cta_of(slot), slot, pc, taken)) return false;
  ++stats_.compaction.capri_skipped;
  advance(slot, all ? k_.fn.code[pc].target : pc + 1, now);
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

// The prediction, for a warp whose threads agree at a branch: a 2-bit counter per branch PC, up when
// compaction would save a warp on one of the paths of a CTA-wide execution, down otherwise (a CTA that did
// not diverge included). Synchronized executions train when the CTA resolves them; skipped ones per round of
// one execution per warp on the CTA's path, from the outcomes they recorded. A skipping decision is
// overridden every 16th time so the counter can relearn. A warp whose own threads split does not ask: it
// always waits, as skipping would run the rest of the branch's region (a whole loop for a loop exit) on a
// stack of its own, without compaction. As warps may be at different places of the path, a warp always joins
// a synchronization its CTA already waits at, and does not wait at a branch another warp has passed more
// often than it has (that warp will not come back to meet it).
bool CapriCompaction::skips(Cta& cta, uint32_t slot, uint32_t pc, const PartMasks& taken) {
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
  if (counter_.empty()) {
    counter_.assign(k_.fn.code.size(), 2);
    skipped_.assign(k_.fn.code.size(), 0);
  }
  if (!behind && counter_[pc] >= 2) return false;
  if (!behind && ++skipped_[pc] >= 16) {
    skipped_[pc] = 0;
    return false;
  }
  // A round holds one skipped execution per warp on the CTA's path; a warp coming back before the others
  // (it is iterations ahead) closes the round early.
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
  if (counter_.empty()) return;
  uint8_t& c = counter_[pc];
  c = adequate ? std::min<uint8_t>(3, c + 1) : (c > 0 ? c - 1 : 0);
}

// Once every live warp of the CTA waits (at a synchronization or a barrier) but they cannot all meet, warps
// waiting at the path's reconvergence point leave the path (the entry below holds their threads there); if
// the rest then wait at one branch it resolves as usual, else each warp waiting at a branch runs it on a
// stack of its own (free mode). Returns true when it acted.
bool CapriCompaction::unblock(Cta& cta, uint64_t now) {
  const uint32_t r = cta.stack.back().reconvergence_pc;
  bool barrier = false, at_r = false, branches_agree = true;
  uint32_t branch_pc = ptx::kNoTarget;
  for (uint32_t slot : cta.slots) {
    const IssueSlot& s = slots_[slot];
    if (!s.live) continue;
    if (host_.at_barrier(slot)) {
      barrier = true;
    } else if (!s.waits) {
      return false;  // a warp still runs
    } else if (s.pc == r) {
      at_r = true;
    } else {
      branches_agree = branches_agree && (branch_pc == ptx::kNoTarget || branch_pc == s.pc);
      branch_pc = s.pc;
    }
  }
  if (branch_pc == ptx::kNoTarget || (!at_r && !barrier && branches_agree)) return false;
  ++stats_.compaction.capri_unblocked;
  if (at_r) {
    CtaEntry& top = cta.stack.back();
    for (uint32_t slot : cta.slots) {
      IssueSlot& s = slots_[slot];
      if (!s.live || !s.waits || s.pc != r) continue;
      for (const Part& part : s.parts) top.mask[part.warp] &= ~part.mask;
      s.waits = false;
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
    s.waits = false;
    --cta.at_sync;
    go_free(slot, s.pc, sync_taken_[slot], now);
  }
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
  o.threads.clear();
  for (const Part& part : slots_[slot].parts) {
    for (ptx::LaneMask m = part.mask; m; m &= m - 1) o.threads.emplace_back(part.warp, std::countr_zero(m));
  }
  const auto n = static_cast<uint32_t>(o.threads.size());
  o.local.reset(pc, n >= 32 ? ~ptx::LaneMask{0} : (ptx::LaneMask{1} << n) - 1);
  o.free = true;
  o.free_until = k_.info[pc].reconvergence_pc;
  free_branch(slot, pc, taken, now);
}

void CapriCompaction::free_branch(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) {
  const ptx::LaneMask positions = positions_of(slot, taken);
  own(slot).local.branch(pc, k_.fn.code[pc].target, positions, k_.info[pc].reconvergence_pc);
  free_settle(slot, now);
}

void CapriCompaction::free_exit(uint32_t slot, ptx::LaneMask positions, uint32_t pc, uint64_t now) {
  OwnState& o = own(slot);
  IssueSlot& s = slots_[slot];
  Cta& cta = cta_of(slot);
  std::vector<Part> gone;
  for (ptx::LaneMask m = positions; m; m &= m - 1) {
    const auto& [warp, lane] = o.threads[std::countr_zero(m)];
    gone.push_back(Part{warp, ptx::LaneMask{1} << lane});
  }
  threads_exit(slot, gone);
  o.local.exit(pc, positions);
  if (o.local.empty()) {
    o.free = false;
    s.parts.clear();
    stop(slot);
    if (--cta.live_warps == 0) {
      form(cta, now);
      return;
    }
    check(cta, now);
  } else {
    free_settle(slot, now);
  }
  if (cta.live) host_.check_deadlock(cta_index(cta));
}

// After the warp's own stack moved: leave free mode at the reconvergence point, else run its top entry.
void CapriCompaction::free_settle(uint32_t slot, uint64_t now) {
  OwnState& o = own(slot);
  IssueSlot& s = slots_[slot];
  o.local.settle();
  const ptx::SimtEntry& top = o.local.top();
  s.parts.clear();
  for (ptx::LaneMask m = top.mask; m; m &= m - 1) {
    const auto& [warp, lane] = o.threads[std::countr_zero(m)];
    if (s.parts.empty() || s.parts.back().warp != warp) s.parts.push_back(Part{warp, 0});
    s.parts.back().mask |= ptx::LaneMask{1} << lane;
  }
  s.pc = top.pc;
  if (o.local.depth() == 1 && top.pc == o.free_until) {
    o.free = false;
    advance(slot, top.pc, now);
    return;
  }
  if (top.pc >= k_.fn.code.size()) free_exit(slot, top.mask, top.pc, now);  // fell off the end
}

}  // namespace simtlm::hw
