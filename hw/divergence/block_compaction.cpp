#include "hw/divergence/block_compaction.hpp"

#include <algorithm>
#include <bit>

#include "hw/compaction.hpp"
#include "models/ptx/reconvergence.hpp"

namespace simtlm::hw {
namespace {

bool any_thread(const std::vector<ptx::LaneMask>& mask) {
  return std::any_of(mask.begin(), mask.end(), [](ptx::LaneMask m) { return m != 0; });
}

bool is_device_call(const ptx::Instr& in) {
  return in.op == ptx::Op::call && in.call_site != ptx::kNoTarget;
}

}  // namespace

void BlockCompaction::CtaOutcome::add(const std::vector<Part>& parts, const PartMasks& taken_by_part) {
  for (size_t i = 0; i < parts.size(); ++i) {
    taken[parts[i].warp] |= taken_by_part[i];
    not_taken[parts[i].warp] |= parts[i].mask & ~taken_by_part[i];
  }
}

bool BlockCompaction::CtaOutcome::diverged() const {
  return any_thread(taken) && any_thread(not_taken);
}

BlockCompaction::BlockCompaction(const DivergenceParams& params, const TimingKernel& kernel, SlotHost& host,
                                 const CompactionUnits& units)
    : DivergenceUnit(params, kernel, host, params.contexts),
      units_(units),
      permutation_(
          std::make_unique<LanePermutationMap>(params.permutation, ptx::kWarpSize, params.permutation_seed)),
      ctas_(params.ctas),
      sync_taken_(params.contexts),
      wait_since_(params.contexts, 0) {}

void BlockCompaction::start_waiting(uint32_t slot, uint64_t now) {
  slots_[slot].waits = true;
  wait_since_[slot] = now;
  ++ctas_[slots_[slot].cta].at_sync;
}

void BlockCompaction::stop_waiting(uint32_t slot, uint64_t now) {
  if (!slots_[slot].waits) return;
  slots_[slot].waits = false;
  stats_.compaction.sync_wait_cycles += now - wait_since_[slot];
}

std::string BlockCompaction::refusal() const {
  return tbc_call_refusal(k_.module, k_.fn);
}

std::string tbc_call_refusal(const ptx::Module& module, const ptx::Function& fn) {
  for (uint32_t pc = 0; pc < fn.code.size(); ++pc) {
    const ptx::Instr& in = fn.code[pc];
    if (!is_device_call(in)) continue;
    return "kernel " + fn.name + " calls .func " + fn.call_sites[in.call_site].callee_name + " at " +
           describe_pc(module, fn, pc) +
           ": calls are not supported under thread block compaction (the CTA-wide stack has no call frames); "
           "run it with per-warp stacks (divergence.unit: warp_stacks)";
  }
  return "";
}

// ---- the slots' view ------------------------------------------------------------------------------------

SlotView BlockCompaction::view(uint32_t slot) const {
  return {packed_lanes(slots_[slot].parts), static_cast<uint32_t>(ctas_[slots_[slot].cta].stack.size())};
}

ptx::LaneMask BlockCompaction::taken_lanes(uint32_t slot, const PartMasks& taken) const {
  const std::vector<Part>& parts = slots_[slot].parts;
  ptx::LaneMask packed = 0;
  for (size_t i = 0, k = 0; i < parts.size(); ++i) {  // in the order of view().lanes
    for (ptx::LaneMask m = parts[i].mask; m; m &= m - 1, ++k) {
      if (taken[i] >> std::countr_zero(m) & 1) packed |= ptx::LaneMask{1} << k;
    }
  }
  return packed;
}

std::vector<std::pair<uint32_t, uint64_t>> BlockCompaction::live_slots(const Cta& cta,
                                                                       bool waiting_only) const {
  std::vector<std::pair<uint32_t, uint64_t>> out;
  for (uint32_t slot : cta.slots) {
    const IssueSlot& s = slots_[slot];
    if (s.live && (!waiting_only || s.waits)) out.emplace_back(slot, s.generation);
  }
  return out;
}

// ---- launch, branches, exits ----------------------------------------------------------------------------

void BlockCompaction::launch_cta(uint32_t c, uint64_t linear_id, const std::vector<uint32_t>& contexts,
                                 const std::vector<ptx::LaneMask>& valid, uint64_t now) {
  Cta& cta = ctas_[c];
  for (uint32_t i = 0; i < contexts.size(); ++i) {
    IssueSlot& s = slots_[contexts[i]];
    s.live = true;
    s.cta = c;
    ++s.generation;
    s.parts.assign(1, Part{i, valid[i]});
    s.pc = 0;
    s.waits = false;
    host_.start_slot(contexts[i], now, Stall::branch);
  }
  cta.live = true;
  cta.linear_id = linear_id;
  cta.slots = contexts;
  cta.live_warps = static_cast<uint32_t>(contexts.size());
  cta.stack.assign(1, CtaEntry{0, ptx::kNoTarget, valid});
  cta.at_sync = 0;
  cta.free_warps = 0;
  cta.off_path.assign(contexts.size(), 0);
  cta.sync_at_branch = false;
  stats_.stack.max_depth = std::max<uint64_t>(stats_.stack.max_depth, 1);
  // As launched, the CTA's warps are what the compactor forms from its full mask: nothing to form.
  for (const auto& [slot, generation] : live_slots(cta, false)) {
    if (slots_[slot].live && slots_[slot].generation == generation) advance(slot, 0, now);
  }
}

void BlockCompaction::branch(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) {
  const ptx::Instr& in = k_.fn.code[pc];
  if (in.guard == ptx::kNoReg) {
    advance(slot, in.target, now);
    return;
  }
  if (skips_synchronization(slot, pc, taken, now)) return;
  Cta& cta = cta_of(slot);
  sync_taken_[slot] = taken;
  start_waiting(slot, now);
  check(cta, now);
}

void BlockCompaction::exit(uint32_t slot, uint32_t pc, const PartMasks& exited, uint64_t now) {
  exit_threads(slot, exited, pc, now);
}

void BlockCompaction::barrier_arrived(uint32_t slot, uint64_t now) {
  check(cta_of(slot), now);  // CAPRI: the last running warp may now wait
}

void BlockCompaction::stop(uint32_t slot) {
  slots_[slot].live = false;
  host_.stop_slot(slot);
}

// Threads leave the slot, every entry of the CTA stack and the CTA's barrier counts.
void BlockCompaction::threads_exit(uint32_t slot, const std::vector<Part>& gone) {
  IssueSlot& s = slots_[slot];
  Cta& cta = cta_of(slot);
  uint64_t count = 0;
  for (const Part& g : gone) {
    if (!g.mask) continue;
    for (CtaEntry& e : cta.stack) e.mask[g.warp] &= ~g.mask;
    cta.off_path[g.warp] &= ~g.mask;
    for (Part& part : s.parts) {
      if (part.warp == g.warp) part.mask &= ~g.mask;
    }
    count += static_cast<uint64_t>(std::popcount(g.mask));
  }
  std::erase_if(s.parts, [](const Part& p) { return p.mask == 0; });
  host_.threads_exited(s.cta, count);
}

void BlockCompaction::exit_threads(uint32_t slot, const PartMasks& exited, uint32_t pc, uint64_t now) {
  IssueSlot& s = slots_[slot];
  Cta& cta = cta_of(slot);
  std::vector<Part> gone;
  for (size_t i = 0; i < s.parts.size(); ++i) gone.push_back(Part{s.parts[i].warp, exited[i]});
  threads_exit(slot, gone);
  if (s.parts.empty()) {
    stop(slot);
    if (--cta.live_warps == 0) {
      form(cta, now);  // the path is done: the next entry runs
      return;
    }
    check(cta, now);
  } else {
    advance(slot, pc + 1, now);
  }
  if (cta.live) host_.check_deadlock(cta_index(cta));
}

void BlockCompaction::advance(uint32_t slot, uint32_t next_pc, uint64_t now) {
  IssueSlot& s = slots_[slot];
  Cta& cta = cta_of(slot);
  s.pc = next_pc;
  if (next_pc >= k_.fn.code.size()) {  // fell off the end: an implicit exit
    PartMasks all{};
    for (size_t i = 0; i < s.parts.size(); ++i) all[i] = s.parts[i].mask;
    exit_threads(slot, all, next_pc, now);
    return;
  }
  if (next_pc == cta.stack.back().reconvergence_pc) {
    start_waiting(slot, now);
    check(cta, now);
  }
}

// ---- synchronization and formation ----------------------------------------------------------------------

// Under TBC the warps of a path run the same instructions, so when all wait they wait at the same place (a
// branch, or the path's reconvergence point). CAPRI's unsynchronized branches let them part (unblock).
// CAPRI's warps off the path (running a region on their own stacks) cannot meet the others at a branch of the
// path, so a branch resolves without them; the path's reconvergence point waits for those that come back to
// it.
void BlockCompaction::check(Cta& cta, uint64_t now) {
  if (cta.live_warps == 0) return;
  if (unblock(cta, now)) return;
  if (cta.at_sync == 0 || cta.at_sync + cta.free_warps < cta.live_warps) return;
  const uint32_t pc = slots_[*std::find_if(cta.slots.begin(), cta.slots.end(), [this](uint32_t slot) {
                        return slots_[slot].live && slots_[slot].waits;
                      })].pc;
  const bool at_branch = pc != cta.stack.back().reconvergence_pc;
  if (!at_branch && returns_to_top(cta)) return;
  cta.sync_pc = pc;
  cta.sync_at_branch = at_branch;
  resolve(cta, now);
}

void BlockCompaction::resolve(Cta& cta, uint64_t now) {
  cta.at_sync = 0;
  CtaOutcome outcome(cta.sync_at_branch ? static_cast<uint32_t>(cta.slots.size()) : 0);  // of the waiting
  for (uint32_t slot : cta.slots) {
    IssueSlot& s = slots_[slot];
    if (cta.sync_at_branch && s.live && s.waits) outcome.add(s.parts, sync_taken_[slot]);
    stop_waiting(slot, now);
  }
  synchronized(cta);
  if (!cta.sync_at_branch) {  // the path reached its reconvergence point
    ++cta.stamp;
    cta.stack.pop_back();
    ++stats_.stack.pops;
    form(cta, now);
    return;
  }
  cta.sync_at_branch = false;
  const uint32_t pc = cta.sync_pc;
  const ptx::Instr& in = k_.fn.code[pc];
  const bool any_taken = any_thread(outcome.taken), any_not = any_thread(outcome.not_taken);
  ++stats_.compaction.cta_branches;
  bool adequate = false;
  if (any_taken && any_not) {
    ++stats_.compaction.divergent;
    adequate = count_paths(pc, outcome);
  }
  resolved(cta, pc, adequate);
  if (!any_taken || in.target == pc + 1) {
    continue_path(cta, pc + 1, now);
    return;
  }
  if (!any_not) {
    continue_path(cta, in.target, now);
    return;
  }
  const CtaEntry top = cta.stack.back();
  ++cta.stamp;
  cta.stack.pop_back();
  const ptx::DivergentPaths paths =
      ptx::divergent_paths(pc + 1, in.target, k_.info[pc].reconvergence_pc, top.reconvergence_pc);
  if (paths.keep_waiting)
    cta.stack.push_back(CtaEntry{paths.reconvergence_pc, top.reconvergence_pc, top.mask});
  if (paths.push_not_taken) {
    cta.stack.push_back(CtaEntry{pc + 1, paths.reconvergence_pc, std::move(outcome.not_taken)});
    ++stats_.stack.pushes;
  }
  if (paths.push_taken) {
    cta.stack.push_back(CtaEntry{in.target, paths.reconvergence_pc, std::move(outcome.taken)});
    ++stats_.stack.pushes;
  }
  stats_.stack.max_depth = std::max<uint64_t>(stats_.stack.max_depth, cta.stack.size());
  form(cta, now);
}

void BlockCompaction::continue_path(Cta& cta, uint32_t pc, uint64_t now) {
  cta.stack.back().pc = pc;
  // Advancing one warp may end the path (all at the reconvergence point) and form new warps: skip those.
  // Warps off the path (CAPRI) did not take part in the branch.
  for (const auto& [slot, generation] : live_slots(cta, false)) {
    if (slots_[slot].live && slots_[slot].generation == generation && cta.live && !off_path(slot))
      advance(slot, pc, now);
  }
}

void BlockCompaction::form(Cta& cta, uint64_t now) {
  std::vector<uint32_t> free_slots;  // formed warps take them in order
  cta.live_warps = 0;
  for (uint32_t slot : cta.slots) {
    if (slots_[slot].live && off_path(slot)) {
      ++cta.live_warps;
      continue;
    }
    if (slots_[slot].live) stop(slot);
    free_slots.push_back(slot);
  }
  cta.at_sync = 0;
  formed(cta);
  while (!cta.stack.empty()) {
    const CtaEntry& top = cta.stack.back();
    if (any_thread(top.mask) && top.pc != top.reconvergence_pc) break;
    cta.stack.pop_back();
    ++cta.stamp;
    ++stats_.stack.pops;
  }
  const uint32_t c = cta_index(cta);
  if (cta.stack.empty()) {
    if (cta.live_warps > 0) return;  // only warps off the path still run: their end forms again
    cta.live = false;
    for (uint32_t warp = 0; warp < cta.slots.size(); ++warp) host_.warp_done(c, warp);
    return;
  }
  const CtaEntry& top = cta.stack.back();
  std::vector<ptx::LaneMask> on_path = top.mask;
  for (size_t w = 0; w < on_path.size(); ++w) on_path[w] &= ~cta.off_path[w];
  std::vector<std::vector<Part>> formed_warps;
  try {
    formed_warps = form_warps(on_path);
  } catch (const std::exception& e) {  // an RtlMismatch under --rtl-check
    host_.unit_failed(std::string(e.what()) + "\n  forming the warps of kernel " + k_.fn.name + ", CTA " +
                      std::to_string(cta.linear_id) + " at " + k_.where_pc(top.pc));
    return;
  }
  const uint32_t pc = top.pc;
  std::vector<std::pair<uint32_t, uint64_t>> started;
  if (formed_warps.size() > free_slots.size()) {
    // CAPRI: warps off the path hold slots. The threads of the warps that find none run the same region as
    // an entry of their own, right below, once these reach the reconvergence point.
    CtaEntry rest{top.pc, top.reconvergence_pc, std::vector<ptx::LaneMask>(top.mask.size(), 0)};
    for (size_t k = free_slots.size(); k < formed_warps.size(); ++k) {
      for (const Part& part : formed_warps[k]) {
        rest.mask[part.warp] |= part.mask;
        cta.stack.back().mask[part.warp] &= ~part.mask;
      }
    }
    formed_warps.resize(free_slots.size());
    cta.stack.insert(cta.stack.end() - 1, std::move(rest));
    ++cta.stamp;
    stats_.stack.max_depth = std::max<uint64_t>(stats_.stack.max_depth, cta.stack.size());
  }
  ++stats_.compaction.formations;
  stats_.compaction.formed_warps += formed_warps.size();
  for (size_t k = 0; k < formed_warps.size(); ++k) {
    const uint32_t slot = free_slots[k];
    IssueSlot& s = slots_[slot];
    s.live = true;
    ++s.generation;
    s.parts = std::move(formed_warps[k]);
    s.pc = pc;
    s.waits = false;
    slot_formed(slot);
    // The priority encoders emit one warp per formation step (Figure 2).
    host_.start_slot(slot, now + 1 + k * p_.formation_cycles, Stall::compaction);
    ++cta.live_warps;
    started.emplace_back(slot, s.generation);
  }
  if (pc < k_.fn.code.size()) return;
  for (const auto& [slot, generation] : started) {  // a path that starts past the end exits at once
    if (slots_[slot].live && slots_[slot].generation == generation && cta.live) advance(slot, pc, now);
  }
}

std::vector<std::vector<Part>> BlockCompaction::form_warps(const std::vector<ptx::LaneMask>& mask) {
  std::vector<std::vector<Part>> out;
  auto add = [&out](size_t warp_index, uint32_t cta_warp, uint32_t lane) {
    if (out.size() <= warp_index) out.resize(warp_index + 1);
    std::vector<Part>& parts = out[warp_index];
    if (parts.empty() || parts.back().warp != cta_warp) parts.push_back(Part{cta_warp, 0});
    parts.back().mask |= ptx::LaneMask{1} << lane;
  };
  if (p_.unit == UnitKind::ideal) {  // any thread in any lane: threads in order, 32 per warp
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

bool BlockCompaction::count_paths(uint32_t pc, const CtaOutcome& o) {
  CompactionStats& s = stats_.compaction;
  bool any = false;
  const bool data = k_.data_branch[pc];
  for (const std::vector<ptx::LaneMask>* path : {&o.taken, &o.not_taken}) {
    uint64_t active = 0, no_tbc = 0;
    for (ptx::LaneMask m : *path) {
      active += static_cast<uint64_t>(std::popcount(m));
      no_tbc += m != 0;
    }
    const uint64_t formed_count = form_warps(*path).size();
    const bool compacted = formed_count < no_tbc;
    any = any || compacted;
    ++s.paths;
    s.compacted += compacted;
    s.warps_no_tbc += no_tbc;
    s.warps_formed += formed_count;
    s.warps_ideal += (active + ptx::kWarpSize - 1) / ptx::kWarpSize;
    ++(data ? s.d_paths : s.p_paths);
    (data ? s.d_compacted : s.p_compacted) += compacted;
  }
  return any;
}

}  // namespace simtlm::hw
