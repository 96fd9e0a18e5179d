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

void Sm::launch_compacted(Cta& cta, uint64_t now) {
  CtaEntry root;
  for (uint32_t i = 0; i < k_.warps_per_cta; ++i) root.mask.push_back(context(cta, i).ctx.valid);
  cta.stack.assign(1, root);
  cta.taken.assign(k_.warps_per_cta, 0);
  cta.not_taken.assign(k_.warps_per_cta, 0);
  cta.at_sync = 0;
  cta.sync_at_branch = false;
  stats_.stack.max_depth = std::max<uint64_t>(stats_.stack.max_depth, 1);
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
    free_branch(w, slot, pc, issued, now);
    return;
  }
  if (in.guard == ptx::kNoReg) {
    compacted_advance(w, slot, in.target, now);
    return;
  }
  if (p_.compaction == Compaction::capri && !capri_synchronizes(cta, pc)) {
    // The warp handles the branch on its own stack, over its threads' positions, until it reconverges.
    ++stats_.compaction.capri_skipped;
    w.threads.clear();
    for (const Part& part : w.parts) {
      for (ptx::LaneMask m = part.mask; m; m &= m - 1) w.threads.emplace_back(part.warp, std::countr_zero(m));
    }
    const auto n = static_cast<uint32_t>(w.threads.size());
    w.local.reset(pc, n >= 32 ? ~ptx::LaneMask{0} : (ptx::LaneMask{1} << n) - 1);
    w.free = true;
    w.free_until = k_.info[pc].reconvergence_pc;
    free_branch(w, slot, pc, issued, now);
    return;
  }
  for (size_t i = 0; i < w.parts.size(); ++i) {
    const Part& part = w.parts[i];
    cta.taken[part.warp] |= issued.taken[i];
    cta.not_taken[part.warp] |= part.mask & ~issued.taken[i];
  }
  cta.sync_at_branch = true;
  cta.sync_pc = pc;
  w.at_sync = true;
  ++cta.at_sync;
  compacted_check(cta, now);
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

void Sm::free_branch(Warp& w, uint32_t slot, uint32_t pc, const Issued& issued, uint64_t now) {
  ptx::LaneMask taken = 0;
  for (size_t i = 0; i < w.parts.size(); ++i) {
    for (ptx::LaneMask m = issued.taken[i]; m; m &= m - 1) {
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
    cta.sync_at_branch = false;
    compacted_check(cta, now);
  }
}

void Sm::compacted_check(Cta& cta, uint64_t now) {
  if (cta.live_warps > 0 && cta.at_sync == cta.live_warps) compacted_resolve(cta, now);
}

void Sm::compacted_resolve(Cta& cta, uint64_t now) {
  others_changed_ = true;
  cta.at_sync = 0;
  cta.capri_sync.clear();
  for (uint32_t slot : cta.slots) warps_[slot].at_sync = false;
  if (!cta.sync_at_branch) {  // the path reached its reconvergence point
    cta.stack.pop_back();
    ++stats_.stack.pops;
    compacted_form(cta, now);
    return;
  }
  cta.sync_at_branch = false;
  const uint32_t pc = cta.sync_pc;
  const ptx::Instr& in = k_.fn.code[pc];
  const bool any_taken = std::any_of(cta.taken.begin(), cta.taken.end(), [](ptx::LaneMask m) { return m; });
  const bool any_not =
      std::any_of(cta.not_taken.begin(), cta.not_taken.end(), [](ptx::LaneMask m) { return m; });
  ++stats_.compaction.cta_branches;
  bool adequate = false;
  if (any_taken && any_not) {
    ++stats_.compaction.divergent;
    adequate = count_paths(pc, cta);
  }
  if (p_.compaction == Compaction::capri && any_taken && any_not) capri_train(pc, adequate);
  const std::vector<ptx::LaneMask> taken = cta.taken, not_taken = cta.not_taken;
  std::fill(cta.taken.begin(), cta.taken.end(), 0);
  std::fill(cta.not_taken.begin(), cta.not_taken.end(), 0);
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
    cta.stack.push_back(CtaEntry{pc + 1, r, not_taken});
    ++stats_.stack.pushes;
  }
  if (in.target != r) {
    cta.stack.push_back(CtaEntry{in.target, r, taken});
    ++stats_.stack.pushes;
  }
  stats_.stack.max_depth = std::max<uint64_t>(stats_.stack.max_depth, cta.stack.size());
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
  cta.capri_sync.clear();
  while (!cta.stack.empty()) {
    const CtaEntry& top = cta.stack.back();
    const bool empty = std::all_of(top.mask.begin(), top.mask.end(), [](ptx::LaneMask m) { return m == 0; });
    if (!empty && top.pc != top.reconvergence_pc) break;
    cta.stack.pop_back();
    ++stats_.stack.pops;
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
  ++stats_.compaction.formations;
  stats_.compaction.formed_warps += formed.size();
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

bool Sm::count_paths(uint32_t pc, const Cta& cta) {
  CompactionStats& s = stats_.compaction;
  bool any = false;
  const bool data = k_.data_branch[pc];
  for (const std::vector<ptx::LaneMask>* path : {&cta.taken, &cta.not_taken}) {
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

// CAPRI's compaction-adequacy prediction, per branch PC: a 2-bit counter trained at every synchronized
// execution where the CTA diverged (up when compaction saved a warp, down otherwise); a branch predicted
// inadequate skips the CTA synchronization, and is synchronized again after 16 skipped CTA executions so the
// counter can relearn. All warps of a CTA take the same decision until the CTA next synchronizes. Uniform
// executions do not train: a skipped branch runs its whole region on per-warp stacks (no compaction inside
// it), so skipping uniform loop branches would switch compaction off for entire loop bodies.
bool Sm::capri_synchronizes(Cta& cta, uint32_t pc) {
  const auto it = cta.capri_sync.find(pc);
  if (it != cta.capri_sync.end()) return it->second;
  if (capri_counter_.empty()) {
    capri_counter_.assign(k_.fn.code.size(), 2);
    capri_skipped_.assign(k_.fn.code.size(), 0);
  }
  bool sync = capri_counter_[pc] >= 2;
  if (!sync && ++capri_skipped_[pc] >= 16) {
    sync = true;
    capri_skipped_[pc] = 0;
  }
  cta.capri_sync[pc] = sync;
  return sync;
}

void Sm::capri_train(uint32_t pc, bool adequate) {
  if (capri_counter_.empty()) return;
  uint8_t& c = capri_counter_[pc];
  c = adequate ? std::min<uint8_t>(3, c + 1) : (c > 0 ? c - 1 : 0);
}

}  // namespace simtlm::hw
