#pragma once
// The rows and the check of the reconvergence stack's parameters (stack.*); plain C++, read by
// stack_params() (hw/stack_params.hpp).
#include "models/config/config_section.hpp"

namespace simtlm::hw {

inline config::ParamRows stack_rows() {
  using K = config::ParamSpec::Kind;
  return {
      {"stack.discipline",
       K::choice,
       "postdom",
       0,
       0,
       {"postdom", "token"},
       "reconvergence: classic post-dominator stack, or the SYNC/DIV token stack of the divergence-cost "
       "paper"},
      {"stack.entries", K::unsigned_int, "16", 2, 1024, {}, "on-chip stack entries per warp"},
      {"stack.spill_chunk", K::unsigned_int, "4", 1, 64, {}, "entries written or read per spill or fill"},
      {"stack.preset",
       K::choice,
       "none",
       0,
       0,
       {"none", "kepler", "maxwell"},
       "stack timing measured in the divergence-cost paper; none = no stack cycles beyond the branch unit"},
      {"stack.cycles.divergent_branch",
       K::unsigned_int,
       "0",
       0,
       100000,
       {},
       "cycles per divergent branch; nonzero overrides the preset"},
      {"stack.cycles.pop",
       K::unsigned_int,
       "0",
       0,
       100000,
       {},
       "cycles per pop; nonzero overrides the preset"},
      {"stack.cycles.spill",
       K::unsigned_int,
       "0",
       0,
       100000,
       {},
       "cycles per spilled chunk; nonzero overrides the preset"},
      {"stack.cycles.fill",
       K::unsigned_int,
       "0",
       0,
       100000,
       {},
       "cycles per filled chunk; nonzero overrides the preset. With any stack cycles set, they are the "
       "whole "
       "cost: warps do not also wait for the fill transactions"},
  };
}

inline void check_stack(const config::ConfigSection& stack) {
  stack.require(stack.u64("spill_chunk") <= stack.u64("entries"), "stack.spill_chunk exceeds stack.entries");
}

}  // namespace simtlm::hw
