// Thread block compaction inside the SM (SLP paper, Section 2.3; Fung and Aamodt's TBC): each CTA runs on one
// CTA-wide post-dominator stack. At a branch every warp of the CTA's current path waits until all have
// executed it; if the CTA's threads split, both paths are pushed and the compactor forms the fewest warps it
// can for the path that runs, each thread in its home lane (the lane permutation, fixed at launch); the same
// happens when a path reaches its reconvergence point. Warps keep running without synchronizing through
// unconditional branches.
#include <algorithm>
#include <bit>

#include "hw/compaction.hpp"
#include "hw/sc/sm.hpp"

namespace simtlm::hw {
namespace {

bool any_thread(const std::vector<ptx::LaneMask>& mask) {
  return std::any_of(mask.begin(), mask.end(), [](ptx::LaneMask m) { return m != 0; });
}

}  // namespace

void Sm::CtaOutcome::add(const std::vector<Part>& parts,
                         const std::array<ptx::LaneMask, ptx::kWarpSize>& taken_by_part) {
  for (size_t i = 0; i < parts.size(); ++i) {
    taken[parts[i].warp] |= taken_by_part[i];
    not_taken[parts[i].warp] |= parts[i].mask & ~taken_by_part[i];
  }
}

bool Sm::CtaOutcome::diverged() const {
  return any_thread(taken) && any_thread(not_taken);
}

void Sm::launch_compacted(Cta& cta, uint64_t now) {
  CtaEntry root;
  for (uint32_t i = 0; i < k_.warps_per_cta; ++i) root.mask.push_back(context(cta, i).ctx.valid);
  cta.stack.assign(1, root);
  cta.at_sync = 0;
  cta.sync_at_branch = false;
  stats_.divergence.stack.max_depth = std::max<uint64_t>(stats_.divergence.stack.max_depth, 1);
  // As launched, the CTA's warps are what the compactor forms from its full mask: nothing to form.
  std::vector<std::pair<uint32_t, uint64_t>> started;
  for (uint32_t slot : cta.slots) started.emplace_back(slot, warps_[slot].generation);
  for (const auto& [slot, generation] : started) {
    Warp& w = warps_[slot];
    if (w.live && w.generation == generation) compacted_advance(w, slot, 0, now);
  }
}

void Sm::compacted_branch(Warp& w, uint32_t slot, uint32_t pc, const Issued& issued, uint64_t now) {
  Cta& cta = ctas_[w.cta];
  const ptx::Instr& in = k_.fn.code[pc];
  if (w.free) {
    free_branch(w, slot, pc, issued.taken, now);
    return;
  }
  if (in.guard == ptx::kNoReg) {
    compacted_advance(w, slot, in.target, now);
    return;
  }
  if (p_.compaction == Compaction::capri) {
    bool all = true, none = true;
    for (size_t i = 0; i < w.parts.size(); ++i) {
      all = all && issued.taken[i] == w.parts[i].mask;
      none = none && issued.taken[i] == 0;
    }
    // A warp whose threads split always waits for compaction (see capri_skips); one whose threads agree
    // asks the predictor, and when it skips it stays on the CTA's path, so compaction inside the region still
    // happens.
    if ((all || none) && capri_skips(cta, w, slot, pc, issued)) {
      ++stats_.divergence.compaction.capri_skipped;
      compacted_advance(w, slot, all ? in.target : pc + 1, now);
      return;
    }
  }
  w.sync_taken = issued.taken;
  w.at_sync = true;
  ++cta.at_sync;
  compacted_check(cta, now);
}

// Free mode: the warp handles the branch on its own stack, over its threads' positions, until it reconverges
// at the branch's reconvergence point and rejoins the CTA's path.
void Sm::go_free(Warp& w, uint32_t slot, uint32_t pc, const std::array<ptx::LaneMask, ptx::kWarpSize>& taken,
                 uint64_t now) {
  w.threads.clear();
  for (const Part& part : w.parts) {
    for (ptx::LaneMask m = part.mask; m; m &= m - 1) w.threads.emplace_back(part.warp, std::countr_zero(m));
  }
  const auto n = static_cast<uint32_t>(w.threads.size());
  w.local.reset(pc, n >= 32 ? ~ptx::LaneMask{0} : (ptx::LaneMask{1} << n) - 1);
  w.free = true;
  w.free_until = k_.info[pc].reconvergence_pc;
  free_branch(w, slot, pc, taken, now);
}

// Threads leave the slot, every entry of the CTA stack and the CTA's barrier counts.
void Sm::threads_exit(Warp& w, uint32_t slot, const std::vector<Part>& gone, uint64_t now) {
  (void)slot;
  (void)now;
  Cta& cta = ctas_[w.cta];
  uint64_t count = 0;
  for (const Part& g : gone) {
    if (!g.mask) continue;
    for (CtaEntry& e : cta.stack) e.mask[g.warp] &= ~g.mask;
    for (Part& part : w.parts) {
      if (part.warp == g.warp) part.mask &= ~g.mask;
    }
    count += static_cast<uint64_t>(std::popcount(g.mask));
  }
  std::erase_if(w.parts, [](const Part& p) { return p.mask == 0; });
  cta.barriers.threads_exited(count);
  release_barrier_waiters(cta);
}

void Sm::compacted_exit(Warp& w, uint32_t slot, const Issued& issued, uint32_t pc, uint64_t now) {
  Cta& cta = ctas_[w.cta];
  if (w.free) {
    ptx::LaneMask positions = 0;
    for (size_t i = 0; i < w.parts.size(); ++i) {
      for (ptx::LaneMask m = issued.exited[i]; m; m &= m - 1) {
        const std::pair<uint32_t, uint32_t> t{w.parts[i].warp, std::countr_zero(m)};
        positions |= ptx::LaneMask{1}
                     << (std::find(w.threads.begin(), w.threads.end(), t) - w.threads.begin());
      }
    }
    free_exit(w, slot, positions, pc, now);
    return;
  }
  std::vector<Part> gone;
  for (size_t i = 0; i < w.parts.size(); ++i) gone.push_back(Part{w.parts[i].warp, issued.exited[i]});
  threads_exit(w, slot, gone, now);
  if (w.parts.empty()) {
    w.live = false;
    scheduler_.remove_warp(slot);
    wave.mask[slot] = 0;
    if (--cta.live_warps == 0) {
      compacted_form(cta, now);  // the path is done: the next entry runs
      return;
    }
    compacted_check(cta, now);
  } else {
    compacted_advance(w, slot, pc + 1, now);
  }
  if (cta.live) check_cta_deadlock(cta);
}

void Sm::free_exit(Warp& w, uint32_t slot, ptx::LaneMask positions, uint32_t pc, uint64_t now) {
  Cta& cta = ctas_[w.cta];
  std::vector<Part> gone;
  for (ptx::LaneMask m = positions; m; m &= m - 1) {
    const auto& [warp, lane] = w.threads[std::countr_zero(m)];
    gone.push_back(Part{warp, ptx::LaneMask{1} << lane});
  }
  threads_exit(w, slot, gone, now);
  w.local.exit(pc, positions);
  if (w.local.empty()) {
    w.free = false;
    w.parts.clear();
    w.live = false;
    scheduler_.remove_warp(slot);
    wave.mask[slot] = 0;
    if (--cta.live_warps == 0) {
      compacted_form(cta, now);
      return;
    }
    compacted_check(cta, now);
  } else {
    free_settle(w, slot, now);
  }
  if (cta.live) check_cta_deadlock(cta);
}

void Sm::free_branch(Warp& w, uint32_t slot, uint32_t pc,
                     const std::array<ptx::LaneMask, ptx::kWarpSize>& taken_by_part, uint64_t now) {
  ptx::LaneMask taken = 0;
  for (size_t i = 0; i < w.parts.size(); ++i) {
    for (ptx::LaneMask m = taken_by_part[i]; m; m &= m - 1) {
      const std::pair<uint32_t, uint32_t> t{w.parts[i].warp, std::countr_zero(m)};
      taken |= ptx::LaneMask{1} << (std::find(w.threads.begin(), w.threads.end(), t) - w.threads.begin());
    }
  }
  w.local.branch(pc, k_.fn.code[pc].target, taken, k_.info[pc].reconvergence_pc);
  free_settle(w, slot, now);
}

// After the warp's own stack moved: leave free mode at the reconvergence point, else run its top entry.
void Sm::free_settle(Warp& w, uint32_t slot, uint64_t now) {
  w.local.settle();
  const ptx::SimtEntry& top = w.local.top();
  w.parts.clear();
  for (ptx::LaneMask m = top.mask; m; m &= m - 1) {
    const auto& [warp, lane] = w.threads[std::countr_zero(m)];
    if (w.parts.empty() || w.parts.back().warp != warp) w.parts.push_back(Part{warp, 0});
    w.parts.back().mask |= ptx::LaneMask{1} << lane;
  }
  wave.mask[slot] = lanes_of(w);
  if (w.local.depth() == 1 && top.pc == w.free_until) {
    w.free = false;
    compacted_advance(w, slot, top.pc, now);
    return;
  }
  if (top.pc >= k_.fn.code.size()) free_exit(w, slot, top.mask, top.pc, now);  // fell off the end
}

void Sm::compacted_advance(Warp& w, uint32_t slot, uint32_t next_pc, uint64_t now) {
  Cta& cta = ctas_[w.cta];
  if (w.free) {
    w.local.top().pc = next_pc;
    free_settle(w, slot, now);
    return;
  }
  w.pc = next_pc;
  wave.mask[slot] = lanes_of(w);
  if (next_pc >= k_.fn.code.size()) {  // fell off the end: an implicit exit
    Issued all;
    for (size_t i = 0; i < w.parts.size(); ++i) all.exited[i] = w.parts[i].mask;
    compacted_exit(w, slot, all, next_pc, now);
    return;
  }
  if (next_pc == cta.stack.back().reconvergence_pc) {
    w.at_sync = true;
    ++cta.at_sync;
    compacted_check(cta, now);
  }
}

// Under TBC the warps of a path run the same instructions, so when all wait they wait at the same place (a
// branch, or the path's reconvergence point). CAPRI's unsynchronized branches let them part: see
// capri_unblock.
void Sm::compacted_check(Cta& cta, uint64_t now) {
  if (cta.live_warps == 0) return;
  if (p_.compaction == Compaction::capri && capri_unblock(cta, now)) return;
  if (cta.at_sync < cta.live_warps) return;
  const uint32_t pc = warps_[*std::find_if(cta.slots.begin(), cta.slots.end(), [this](uint32_t slot) {
                        return warps_[slot].live && warps_[slot].at_sync;
                      })].pc;
  cta.sync_pc = pc;
  cta.sync_at_branch = pc != cta.stack.back().reconvergence_pc;
  compacted_resolve(cta, now);
}

// CAPRI: once every live warp of the CTA waits (at a synchronization or a barrier) but they cannot all meet,
// warps waiting at the path's reconvergence point leave the path (the entry below holds their threads
// there); if the rest then wait at one branch it resolves as usual, else each warp waiting at a branch runs
// it on a stack of its own (free mode). Returns true when it acted.
bool Sm::capri_unblock(Cta& cta, uint64_t now) {
  const uint32_t r = cta.stack.back().reconvergence_pc;
  bool barrier = false, at_r = false, branches_agree = true;
  uint32_t branch_pc = ptx::kNoTarget;
  for (uint32_t slot : cta.slots) {
    const Warp& w = warps_[slot];
    if (!w.live) continue;
    if (w.at_barrier) {
      barrier = true;
    } else if (!w.at_sync) {
      return false;  // a warp still runs
    } else if (w.pc == r) {
      at_r = true;
    } else {
      branches_agree = branches_agree && (branch_pc == ptx::kNoTarget || branch_pc == w.pc);
      branch_pc = w.pc;
    }
  }
  if (branch_pc == ptx::kNoTarget || (!at_r && !barrier && branches_agree)) return false;
  others_changed_ = true;
  ++stats_.divergence.compaction.capri_unblocked;
  if (at_r) {
    CtaEntry& top = cta.stack.back();
    for (uint32_t slot : cta.slots) {
      Warp& w = warps_[slot];
      if (!w.live || !w.at_sync || w.pc != r) continue;
      for (const Part& part : w.parts) top.mask[part.warp] &= ~part.mask;
      w.live = false;
      w.at_sync = false;
      scheduler_.remove_warp(slot);
      wave.mask[slot] = 0;
      --cta.live_warps;
      --cta.at_sync;
    }
  }
  if (!barrier && branches_agree) {
    cta.sync_pc = branch_pc;
    cta.sync_at_branch = true;
    compacted_resolve(cta, now);
    return true;
  }
  std::vector<std::pair<uint32_t, uint64_t>> waiting;
  for (uint32_t slot : cta.slots) {
    if (warps_[slot].live && warps_[slot].at_sync) waiting.emplace_back(slot, warps_[slot].generation);
  }
  for (const auto& [slot, generation] : waiting) {
    Warp& w = warps_[slot];
    if (!cta.live || !w.live || w.generation != generation || !w.at_sync) continue;
    w.at_sync = false;
    --cta.at_sync;
    go_free(w, slot, w.pc, w.sync_taken, now);
  }
  return true;
}

void Sm::compacted_resolve(Cta& cta, uint64_t now) {
  others_changed_ = true;
  cta.at_sync = 0;
  CtaOutcome outcome(cta.sync_at_branch ? k_.warps_per_cta : 0);  // of the warps waiting at the branch
  for (uint32_t slot : cta.slots) {
    Warp& w = warps_[slot];
    if (cta.sync_at_branch && w.live && w.at_sync) outcome.add(w.parts, w.sync_taken);
    w.at_sync = false;
    w.executions.clear();  // the CTA's warps are at one place again
  }
  if (!cta.sync_at_branch) {  // the path reached its reconvergence point
    cta.stack.pop_back();
    ++stats_.divergence.stack.pops;
    compacted_form(cta, now);
    return;
  }
  cta.sync_at_branch = false;
  const uint32_t pc = cta.sync_pc;
  const ptx::Instr& in = k_.fn.code[pc];
  const bool any_taken = any_thread(outcome.taken), any_not = any_thread(outcome.not_taken);
  ++stats_.divergence.compaction.cta_branches;
  bool adequate = false;
  if (any_taken && any_not) {
    ++stats_.divergence.compaction.divergent;
    adequate = count_paths(pc, outcome);
  }
  if (p_.compaction == Compaction::capri) capri_train(pc, adequate);
  if (!any_taken || in.target == pc + 1) {
    compacted_continue(cta, pc + 1, now);
    return;
  }
  if (!any_not) {
    compacted_continue(cta, in.target, now);
    return;
  }
  // As the per-warp post-dominator stack, CTA-wide: the running entry waits at r unless it already
  // reconverges there, and the paths not already at r are pushed, the taken one on top.
  const uint32_t r = k_.info[pc].reconvergence_pc;
  const CtaEntry top = cta.stack.back();
  cta.stack.pop_back();
  if (r != top.reconvergence_pc) cta.stack.push_back(CtaEntry{r, top.reconvergence_pc, top.mask});
  if (pc + 1 != r) {
    cta.stack.push_back(CtaEntry{pc + 1, r, std::move(outcome.not_taken)});
    ++stats_.divergence.stack.pushes;
  }
  if (in.target != r) {
    cta.stack.push_back(CtaEntry{in.target, r, std::move(outcome.taken)});
    ++stats_.divergence.stack.pushes;
  }
  stats_.divergence.stack.max_depth = std::max<uint64_t>(stats_.divergence.stack.max_depth, cta.stack.size());
  compacted_form(cta, now);
}

void Sm::compacted_continue(Cta& cta, uint32_t pc, uint64_t now) {
  cta.stack.back().pc = pc;
  std::vector<std::pair<uint32_t, uint64_t>> running;
  for (uint32_t slot : cta.slots) {
    if (warps_[slot].live) running.emplace_back(slot, warps_[slot].generation);
  }
  // Advancing one warp may end the path (all at the reconvergence point) and form new warps: skip those.
  for (const auto& [slot, generation] : running) {
    Warp& w = warps_[slot];
    if (w.live && w.generation == generation && cta.live) compacted_advance(w, slot, pc, now);
  }
}

void Sm::compacted_form(Cta& cta, uint64_t now) {
  others_changed_ = true;
  for (uint32_t slot : cta.slots) {
    Warp& w = warps_[slot];
    if (!w.live) continue;
    w.live = false;
    scheduler_.remove_warp(slot);
    wave.mask[slot] = 0;
  }
  cta.live_warps = 0;
  cta.at_sync = 0;
  cta.capri_rounds.clear();
  while (!cta.stack.empty()) {
    const CtaEntry& top = cta.stack.back();
    const bool empty = std::all_of(top.mask.begin(), top.mask.end(), [](ptx::LaneMask m) { return m == 0; });
    if (!empty && top.pc != top.reconvergence_pc) break;
    cta.stack.pop_back();
    ++stats_.divergence.stack.pops;
  }
  if (cta.stack.empty()) {
    for (uint32_t slot : cta.slots) {
      slot_used_[slot] = 0;
      wave.depth[slot] = 0;
    }
    resident_warps_ -= k_.warps_per_cta;
    finish_cta(cta, now);
    return;
  }
  const CtaEntry& top = cta.stack.back();
  std::vector<std::vector<Part>> formed;
  try {
    formed = form_warps(top.mask);
  } catch (const std::exception& e) {  // an RtlMismatch under --rtl-check
    fail(std::string(e.what()) + "\n  forming the warps of kernel " + k_.fn.name + ", CTA " +
             std::to_string(cta.ctx.linear_id) + " at " + k_.where_pc(top.pc),
         false);
    return;
  }
  ++stats_.divergence.compaction.formations;
  stats_.divergence.compaction.formed_warps += formed.size();
  const uint32_t pc = top.pc;
  std::vector<std::pair<uint32_t, uint64_t>> started;
  for (size_t k = 0; k < formed.size(); ++k) {
    const uint32_t slot = cta.slots[k];
    Warp& w = warps_[slot];
    w.live = true;
    ++w.generation;
    w.parts = std::move(formed[k]);
    w.pc = pc;
    w.at_sync = false;
    w.at_barrier = false;
    w.free = false;
    // The priority encoders emit one warp per formation step (Figure 2).
    w.ready_cycle = now + 1 + k * p_.formation_cycles;
    w.ready_reason = Stall::compaction;
    scheduler_.add_warp(slot);
    ++cta.live_warps;
    wave.mask[slot] = lanes_of(w);
    wave.depth[slot] = static_cast<uint32_t>(cta.stack.size());
    started.emplace_back(slot, w.generation);
  }
  if (pc < k_.fn.code.size()) return;
  for (const auto& [slot, generation] : started) {  // a path that starts past the end exits at once
    Warp& w = warps_[slot];
    if (w.live && w.generation == generation && cta.live) compacted_advance(w, slot, pc, now);
  }
}

std::vector<std::vector<Sm::Part>> Sm::form_warps(const std::vector<ptx::LaneMask>& mask) {
  std::vector<std::vector<Part>> out;
  auto add = [&out](size_t warp_index, uint32_t cta_warp, uint32_t lane) {
    if (out.size() <= warp_index) out.resize(warp_index + 1);
    std::vector<Part>& parts = out[warp_index];
    if (parts.empty() || parts.back().warp != cta_warp) parts.push_back(Part{cta_warp, 0});
    parts.back().mask |= ptx::LaneMask{1} << lane;
  };
  if (p_.compaction == Compaction::ideal) {  // any thread in any lane: threads in order, 32 per warp
    size_t n = 0;
    for (uint32_t w = 0; w < mask.size(); ++w) {
      for (ptx::LaneMask m = mask[w]; m; m &= m - 1, ++n) add(n / ptx::kWarpSize, w, std::countr_zero(m));
    }
    return out;
  }
  std::vector<uint64_t> wide(mask.begin(), mask.end());
  LanePermutation* unit = units_.permutation;
  const LanePermutationMap& map = *permutation_;
  const HomeLaneFn home = unit ? HomeLaneFn([unit](uint32_t w, uint32_t l) { return unit->home_lane(w, l); })
                               : HomeLaneFn([&map](uint32_t w, uint32_t l) { return map.home_lane(w, l); });
  const PathCompaction compaction = compact_path(wide, ptx::kWarpSize, home, units_.compactor);
  for (size_t k = 0; k < compaction.warps.size(); ++k) {
    // Parts in CTA-warp order: collect each formed warp's threads by their CTA warp.
    std::vector<std::pair<uint32_t, uint32_t>> threads;
    for (int32_t t : compaction.warps[k].lane) {
      if (t != kIdleLane) threads.emplace_back(t / ptx::kWarpSize, t % ptx::kWarpSize);
    }
    std::sort(threads.begin(), threads.end());
    for (const auto& [w, l] : threads) add(k, w, l);
  }
  return out;
}

bool Sm::count_paths(uint32_t pc, const CtaOutcome& o) {
  CompactionStats& s = stats_.divergence.compaction;
  bool any = false;
  const bool data = k_.data_branch[pc];
  for (const std::vector<ptx::LaneMask>* path : {&o.taken, &o.not_taken}) {
    uint64_t active = 0, no_tbc = 0;
    for (ptx::LaneMask m : *path) {
      active += static_cast<uint64_t>(std::popcount(m));
      no_tbc += m != 0;
    }
    const uint64_t formed = form_warps(*path).size();
    const bool compacted = formed < no_tbc;
    any = any || compacted;
    ++s.paths;
    s.compacted += compacted;
    s.warps_no_tbc += no_tbc;
    s.warps_formed += formed;
    s.warps_ideal += (active + ptx::kWarpSize - 1) / ptx::kWarpSize;
    ++(data ? s.d_paths : s.p_paths);
    (data ? s.d_compacted : s.p_compacted) += compacted;
  }
  return any;
}

// CAPRI's compaction-adequacy prediction, for a warp whose threads agree at a branch: a 2-bit counter per
// branch PC, up when compaction would save a warp on one of the paths of a CTA-wide execution, down otherwise
// (a CTA that did not diverge included). Synchronized executions train when the CTA resolves them; skipped
// ones per round of one execution per warp on the CTA's path, from the outcomes they recorded. A skipping
// decision is overridden every 16th time so the counter can relearn. A warp whose own threads split does not
// ask: it always waits, as skipping would run the rest of the branch's region (a whole loop for a loop exit)
// on a stack of its own, without compaction. As warps may be at
// different places of the path, a warp always joins a synchronization its CTA already waits at, and does not
// wait at a branch another warp has passed more often than it has (that warp will not come back to meet it).
bool Sm::capri_skips(Cta& cta, Warp& w, uint32_t slot, uint32_t pc, const Issued& issued) {
  uint32_t& mine = w.executions[pc];
  bool join = false, behind = false;
  uint32_t on_path = 1;  // live warps on the CTA's path (not in free mode)
  for (uint32_t other_slot : cta.slots) {
    const Warp& other = warps_[other_slot];
    if (other_slot == slot || !other.live || other.free) continue;
    ++on_path;
    join = join || (other.at_sync && other.pc == pc);
    const auto it = other.executions.find(pc);
    behind = behind || (it != other.executions.end() && it->second > mine);
  }
  ++mine;
  if (join) return false;
  if (capri_counter_.empty()) {
    capri_counter_.assign(k_.fn.code.size(), 2);
    capri_skipped_.assign(k_.fn.code.size(), 0);
  }
  if (!behind && capri_counter_[pc] >= 2) return false;
  if (!behind && ++capri_skipped_[pc] >= 16) {
    capri_skipped_[pc] = 0;
    return false;
  }
  // A round holds one skipped execution per warp on the CTA's path; a warp coming back before the others
  // (it is iterations ahead) closes the round early.
  Cta::CapriRound& round = cta.capri_rounds[pc];
  const auto close = [&] {
    capri_train(pc, compaction_pays(round.outcome));
    round.slots.clear();
  };
  if (std::find(round.slots.begin(), round.slots.end(), slot) != round.slots.end()) close();
  if (round.slots.empty()) round.outcome = CtaOutcome(k_.warps_per_cta);
  round.outcome.add(w.parts, issued.taken);
  round.slots.push_back(slot);
  if (round.slots.size() >= on_path) close();
  return true;
}

bool Sm::compaction_pays(const CtaOutcome& o) {
  if (!o.diverged()) return false;
  for (const std::vector<ptx::LaneMask>* path : {&o.taken, &o.not_taken}) {
    const auto warps = static_cast<size_t>(
        std::count_if(path->begin(), path->end(), [](ptx::LaneMask m) { return m != 0; }));
    if (form_warps(*path).size() < warps) return true;
  }
  return false;
}

void Sm::capri_train(uint32_t pc, bool adequate) {
  if (capri_counter_.empty()) return;
  uint8_t& c = capri_counter_[pc];
  c = adequate ? std::min<uint8_t>(3, c + 1) : (c > 0 ? c - 1 : 0);
}

}  // namespace simtlm::hw
