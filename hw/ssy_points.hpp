// Where the token discipline pushes SYNC tokens. PTX has no SSY instruction, so the points come from the
// CFG; docs/simt-stack.md explains the rule against the paper's SASS listings 3 and 4.
//
// The conditional branches whose immediate post-dominator is the same block R form the region of R: those
// branches' blocks plus every block reachable from them without passing through R. SASS puts one SSY
// before the region, executed once each time a warp enters it (listing 4 re-executes the inner loop's SSY
// on every outer iteration, listing 3 puts the loop's SSY before its entry test). So an SSY point is the
// first instruction of a region block that is entered from outside the region (or is the kernel entry),
// and it fires when the warp is about to execute it and the instruction it executed last lies outside the
// region. Branches that reconverge only at the virtual exit get no SSY: their lanes rejoin by exiting.
// Calls (docs/simt-stack.md): a .func linked into the kernel starts a region like the kernel entry does, and
// its SSY points fire whenever a call enters it (recursive calls come from inside the callee's own regions);
// after a ret the warp continues as if it came from the call instruction.
#pragma once

#include <cstdint>
#include <vector>

#include "models/ptx/cfg.hpp"

namespace simtlm::hw {

struct SsyPoint {
  uint32_t pc = 0;                // fires before this instruction
  uint32_t reconvergence_pc = 0;  // the region's join (first instruction of R)
  std::vector<uint8_t> region;    // per block: in the region
};

class SsyMap {
 public:
  SsyMap(const ptx::Function& fn, const ptx::Cfg& cfg);
  // The points at pc, outer regions first (so nested SYNC tokens stack in nesting order).
  const std::vector<SsyPoint>& points_at(uint32_t pc) const;
  // The join PCs whose SYNC tokens the warp pushes before executing pc, given the PC it executed last
  // (kNoTarget at the start).
  std::vector<uint32_t> fire(uint32_t pc, uint32_t previous_pc) const;
  size_t size() const { return count_; }

 private:
  const ptx::Cfg& cfg_;
  std::vector<std::vector<SsyPoint>> by_pc_;
  std::vector<uint8_t> callee_entry_;  // per PC: first instruction of a linked .func
  std::vector<uint8_t> callee_ret_;    // per PC: ret of a linked .func
  size_t count_ = 0;
};

}  // namespace simtlm::hw
