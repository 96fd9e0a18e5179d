#include "hw/ssy_points.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace simtlm::hw {

SsyMap::SsyMap(const ptx::Function& fn, const ptx::Cfg& cfg)
    : cfg_(cfg),
      by_pc_(fn.code.size() + 1),
      callee_entry_(fn.code.size() + 1, 0),
      callee_ret_(fn.code.size() + 1, 0) {
  for (const ptx::LinkedCallee& callee : fn.linked_callees) callee_entry_[callee.entry_pc] = 1;
  for (uint32_t pc = 0; pc < fn.code.size(); ++pc)
    callee_ret_[pc] = fn.code[pc].returns_from != ptx::kNoTarget;
  const auto& blocks = cfg.blocks();
  const uint32_t exit_block = cfg.virtual_exit();
  std::map<uint32_t, std::vector<uint8_t>> regions;  // join PC -> blocks
  for (uint32_t pc = 0; pc < fn.code.size(); ++pc) {
    if (fn.code[pc].op != ptx::Op::bra || !cfg.is_conditional_branch(pc)) continue;
    const uint32_t join = cfg.reconvergence_pc(pc);
    if (join == ptx::kNoTarget) continue;
    const uint32_t join_block = cfg.block_of(join);
    auto [it, fresh] = regions.try_emplace(join, std::vector<uint8_t>(blocks.size(), 0));
    std::vector<uint8_t>& region = it->second;
    std::vector<uint32_t> work{cfg.block_of(pc)};
    region[work.back()] = 1;
    while (!work.empty()) {
      const uint32_t b = work.back();
      work.pop_back();
      for (uint32_t s : blocks[b].succ) {
        if (s == join_block || s == exit_block || region[s]) continue;
        region[s] = 1;
        work.push_back(s);
      }
    }
  }
  for (auto& [join, region] : regions) {
    const auto& in_region = region;  // clang 14 (the sanitizer build) cannot capture a structured binding
    for (uint32_t b = 0; b < blocks.size(); ++b) {
      if (!region[b]) continue;
      const auto& pred = blocks[b].pred;
      const bool entered = b == 0 || callee_entry_[blocks[b].first] ||
                           std::any_of(pred.begin(), pred.end(), [&](uint32_t p) { return !in_region[p]; });
      if (!entered) continue;
      by_pc_[blocks[b].first].push_back(SsyPoint{blocks[b].first, join, region});
      ++count_;
    }
  }
  // Outer regions contain inner ones, so the larger region's SYNC goes below.
  for (auto& points : by_pc_) {
    std::stable_sort(points.begin(), points.end(), [](const SsyPoint& a, const SsyPoint& b) {
      return std::accumulate(a.region.begin(), a.region.end(), 0) >
             std::accumulate(b.region.begin(), b.region.end(), 0);
    });
  }
}

const std::vector<SsyPoint>& SsyMap::points_at(uint32_t pc) const {
  static const std::vector<SsyPoint> kNone;
  return pc < by_pc_.size() ? by_pc_[pc] : kNone;
}

std::vector<uint32_t> SsyMap::fire(uint32_t pc, uint32_t previous_pc) const {
  std::vector<uint32_t> joins;
  if (pc < callee_entry_.size() && callee_entry_[pc]) previous_pc = ptx::kNoTarget;  // entered by a call
  if (previous_pc < callee_ret_.size() && callee_ret_[previous_pc] && pc > 0) previous_pc = pc - 1;
  for (const SsyPoint& p : points_at(pc)) {
    const bool inside = previous_pc != ptx::kNoTarget && previous_pc < by_pc_.size() - 1 &&
                        p.region[cfg_.block_of(previous_pc)];
    if (!inside) joins.push_back(p.reconvergence_pc);
  }
  return joins;
}

}  // namespace simtlm::hw
