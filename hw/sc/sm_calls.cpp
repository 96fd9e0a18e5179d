// The Sm's part of .func calls on per-warp stacks (docs/simt-stack.md, "Calls"): entering a call frame, and
// refusing kernels with calls under thread block compaction, whose CTA-wide stack has no call frames.
#include "hw/sc/sm.hpp"

namespace simtlm::hw {

bool Sm::is_device_call(uint32_t pc) const {
  const ptx::Instr& in = k_.fn.code[pc];
  return in.op == ptx::Op::call && in.call_site != ptx::kNoTarget;
}

StackUpdate Sm::advance_or_call(Warp& w, uint32_t pc, ptx::LaneMask lanes) {
  if (!is_device_call(pc)) return w.stack->advance(pc + 1);
  const ptx::CallSite& site = k_.fn.call_sites[k_.fn.code[pc].call_site];
  return w.stack->call(lanes, pc + 1, k_.fn.linked_callees.at(site.linked).entry_pc);
}

std::string Sm::call_refusal(uint32_t pc) const {
  return "kernel " + k_.fn.name + " calls .func " + k_.fn.call_sites[k_.fn.code[pc].call_site].callee_name +
         " at " + k_.where_pc(pc) +
         ": calls are not supported under thread block compaction (the CTA-wide stack has no call frames); "
         "run "
         "it with per-warp stacks (compaction.mechanism: none)";
}

std::string Sm::calls_refused_under_compaction() const {
  if (!compacting()) return "";
  for (uint32_t pc = 0; pc < k_.fn.code.size(); ++pc) {
    if (is_device_call(pc)) return call_refusal(pc);
  }
  return "";
}

}  // namespace simtlm::hw
