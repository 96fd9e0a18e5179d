// What each divergence unit tells the timing model's livelock watch (DivergenceUnit::append_state,
// hw/sc/sm_livelock.cpp): the state that decides which threads run next and where, and nothing that only
// counts or times (statistics, cycles, stamps that grow with every push). Two equal states of a unit must
// lead, for equal registers and memory, to the same choices.
#include <algorithm>
#include <map>

#include "hw/divergence/block_compaction.hpp"
#include "hw/divergence/capri_compaction.hpp"
#include "hw/divergence/warp_stacks.hpp"

namespace simtlm::hw {

bool WarpStacks::append_state(std::vector<uint64_t>& out) const {
  for (uint32_t s = 0; s < slots_.size(); ++s) {
    if (!slots_[s].live) continue;
    out.push_back(uint64_t(s) << 32 | previous_pc_[s]);
    stacks_[s]->append_state(out);
  }
  for (const CtaState& cta : ctas_) out.push_back(uint64_t(cta.live) << 32 | cta.live_warps);
  return true;
}

bool BlockCompaction::append_state(std::vector<uint64_t>& out) const {
  for (const Cta& cta : ctas_) {
    if (!cta.live) continue;
    out.push_back(cta.linear_id);
    out.push_back(uint64_t(cta.live_warps) << 32 | cta.at_sync);
    out.push_back(uint64_t(cta.free_warps) << 32 | cta.sync_pc);
    out.push_back(uint64_t(cta.sync_at_branch) << 32 | cta.stack.size());
    out.insert(out.end(), cta.slots.begin(), cta.slots.end());
    out.insert(out.end(), cta.off_path.begin(), cta.off_path.end());
    for (const CtaEntry& e : cta.stack) {
      out.push_back(uint64_t(e.pc) << 32 | e.reconvergence_pc);
      out.insert(out.end(), e.mask.begin(), e.mask.end());
    }
  }
  for (uint32_t s = 0; s < slots_.size(); ++s) {
    if (!slots_[s].live || !slots_[s].waits) continue;
    out.push_back(s);
    for (size_t i = 0; i < slots_[s].parts.size(); ++i) out.push_back(sync_taken_[s][i]);
  }
  return true;
}

// Per slot as well: its own stack in free mode, the threads it holds there, and how often it passed each
// branch since its CTA last synchronized, relative to the other warps of the CTA (the unit only compares
// those counts, and in a spin they grow without end).
bool CapriCompaction::append_state(std::vector<uint64_t>& out) const {
  BlockCompaction::append_state(out);
  for (uint32_t c = 0; c < ctas_.size(); ++c) {
    const Cta& cta = ctas_[c];
    if (!cta.live) continue;
    std::map<uint32_t, uint32_t> least;  // per branch PC, the fewest passes of a warp of the CTA
    for (uint32_t slot : cta.slots) {
      for (const auto& [pc, n] : own_[slot].executions) {
        auto [it, added] = least.try_emplace(pc, n);
        if (!added) it->second = std::min(it->second, n);
      }
    }
    for (uint32_t slot : cta.slots) {
      const OwnState& o = own_[slot];
      out.push_back(uint64_t(slot) << 32 | o.executions.size());
      for (const auto& [pc, n] : o.executions) out.push_back(uint64_t(pc) << 32 | (n - least.at(pc)));
      if (!o.free) continue;
      out.push_back(uint64_t(o.free_until) << 32 | (o.left_stamp == cta.stamp));
      out.push_back(o.left_depth);
      for (const ptx::SimtEntry& e : o.local.entries()) {
        out.push_back(uint64_t(e.pc) << 32 | e.reconvergence_pc);
        out.push_back(e.mask);
      }
      for (const auto& [warp, lane] : o.threads) out.push_back(uint64_t(warp) << 32 | lane);
    }
    for (const auto& [pc, round] : rounds_[c]) {
      out.push_back(uint64_t(pc) << 32 | round.slots.size());
      out.insert(out.end(), round.slots.begin(), round.slots.end());
      out.insert(out.end(), round.outcome.taken.begin(), round.outcome.taken.end());
      out.insert(out.end(), round.outcome.not_taken.begin(), round.outcome.not_taken.end());
    }
  }
  table_.append_state(out);
  return true;
}

}  // namespace simtlm::hw
