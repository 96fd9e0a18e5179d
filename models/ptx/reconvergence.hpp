// The immediate post-dominator rule at a divergent branch, written once for every stack that follows it: the
// functional runner's (models/ptx/simt_stack.hpp), the timing model's per-warp stack (hw/simt_stack.cpp),
// thread block compaction's CTA-wide stack (hw/divergence/block_compaction.cpp) and the compaction study's.
//
// When the threads of the running entry split at a branch (reconvergence point `r`), the running
// entry becomes one that waits at r with all its threads, unless it already reconverges at r (the entry below
// holds them there, so a loop that loses threads every iteration keeps a constant depth); then the not-taken
// path and the taken path are pushed, the taken one on top so it runs first, each unless it already starts at
// r (it would pop at once and the waiting entry covers its threads).
#pragma once

#include <cstdint>

namespace simtlm::ptx {

struct DivergentPaths {
  bool keep_waiting = false;    // the running entry stays, waiting at reconvergence_pc
  bool push_not_taken = false;  // an entry for the fall-through path
  bool push_taken = false;      // an entry for the taken path (on top)
  uint32_t reconvergence_pc = 0;
};

constexpr DivergentPaths divergent_paths(uint32_t fallthrough, uint32_t target, uint32_t reconvergence_pc,
                                         uint32_t running_reconvergence_pc) {
  return DivergentPaths{reconvergence_pc != running_reconvergence_pc, fallthrough != reconvergence_pc,
                        target != reconvergence_pc, reconvergence_pc};
}

}  // namespace simtlm::ptx
