#include "hw/divergence/warp_stacks.hpp"

#include <bit>

#include "models/ptx/call_link.hpp"

namespace simtlm::hw {

WarpStacks::WarpStacks(const DivergenceParams& params, const TimingKernel& kernel, SlotHost& host)
    : DivergenceUnit(params, kernel, host, params.contexts),
      previous_pc_(params.contexts, ptx::kNoTarget),
      ctas_(params.ctas) {
  // One slot per context: each stack has the spill region of its warp slot on this SM.
  for (uint32_t slot = 0; slot < params.contexts; ++slot) {
    stacks_.push_back(std::make_unique<SimtStack>(p_.stack, p_.sm_id * p_.contexts + slot));
  }
}

void WarpStacks::launch_cta(uint32_t cta, uint64_t, const std::vector<uint32_t>& contexts,
                            const std::vector<ptx::LaneMask>& valid, uint64_t now) {
  ctas_[cta] = CtaState{true, static_cast<uint32_t>(contexts.size())};
  for (uint32_t i = 0; i < contexts.size(); ++i) {
    const uint32_t slot = contexts[i];
    IssueSlot& s = slots_[slot];
    s.live = true;
    s.waits = false;
    s.cta = cta;
    ++s.generation;
    s.parts.assign(1, Part{i, valid[i]});
    previous_pc_[slot] = ptx::kNoTarget;
    stacks_[slot]->reset(0, valid[i]);
    s.pc = stacks_[slot]->pc();
    host_.start_slot(slot, now, Stall::branch);
  }
  // Settling may end the CTA (an empty kernel) and launch the next one into the same contexts: keep a copy.
  const std::vector<uint32_t> started = contexts;
  for (uint32_t slot : started) settle(slot, now);
}

void WarpStacks::before_issue(uint32_t slot, uint32_t pc, uint64_t now) {
  SimtStack& stack = *stacks_[slot];
  if (stack.discipline() == Discipline::token && !k_.ssy.points_at(pc).empty()) {
    for (uint32_t join : k_.ssy.fire(pc, previous_pc_[slot])) apply(slot, stack.ssy(join), now, pc);
  }
  slots_[slot].parts[0].mask = stack.mask();
  previous_pc_[slot] = pc;
}

void WarpStacks::branch(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) {
  const ptx::Instr& in = k_.fn.code[pc];
  const BranchOutcome outcome{pc,     slots_[slot].parts[0].mask,  taken[0], in.target,
                              pc + 1, k_.info[pc].reconvergence_pc};
  apply(slot, stacks_[slot]->branch(outcome), now, pc);
  settle(slot, now);
}

void WarpStacks::exit(uint32_t slot, uint32_t pc, const PartMasks& exited, uint64_t now) {
  if (k_.fn.code[pc].returns_from != ptx::kNoTarget) {  // a .func returns: its lanes wait for the others
    apply(slot, stacks_[slot]->ret(exited[0], pc + 1), now, pc);
    settle(slot, now);
    return;
  }
  exit_lanes(slot, exited[0], pc + 1, now);
}

bool WarpStacks::is_device_call(uint32_t pc) const {
  const ptx::Instr& in = k_.fn.code[pc];
  return in.op == ptx::Op::call && in.call_site != ptx::kNoTarget;
}

void WarpStacks::executed(uint32_t slot, uint32_t pc, ptx::LaneMask call_lanes, uint64_t now) {
  SimtStack& stack = *stacks_[slot];
  if (!is_device_call(pc)) {
    apply(slot, stack.advance(pc + 1), now, pc);
    return;
  }
  const ptx::CallSite& site = k_.fn.call_sites[k_.fn.code[pc].call_site];
  if (site.indirect) {  // without the lanes' targets (indirect_call has them): no lane calls
    apply(slot, stack.call_groups(nullptr, 0, pc + 1), now, pc);
    return;
  }
  apply(slot, stack.call(call_lanes, pc + 1, k_.fn.linked_callees.at(site.linked).entry_pc), now, pc);
}

void WarpStacks::indirect_call(uint32_t slot, uint32_t pc, ptx::LaneMask call_lanes,
                               const std::array<uint32_t, ptx::kWarpSize>& entry_pcs, uint64_t now) {
  ptx::CallGroups groups;
  const size_t count = ptx::call_groups(entry_pcs, call_lanes, groups);
  apply(slot, stacks_[slot]->call_groups(groups.data(), count, pc + 1), now, pc);
}

void WarpStacks::apply(uint32_t slot, const StackUpdate& u, uint64_t now, uint32_t pc) {
  SimtStack& stack = *stacks_[slot];
  if (u.cycles) host_.delay_slot(slot, now + 1 + u.cycles, Stall::stack);
  IssueSlot& s = slots_[slot];
  s.parts[0].mask = stack.mask();
  s.pc = stack.pc();
  if (!u.spills && !u.fills) return;
  // A preset's measured costs already include the memory round trip; otherwise the warp waits for a fill.
  for (const MemRequest& r : stack.take_requests()) {
    host_.stack_request(slot, pc, r, !r.write && !p_.stack_timing_measured);
  }
}

void WarpStacks::exit_lanes(uint32_t slot, ptx::LaneMask lanes, uint32_t next_pc, uint64_t now) {
  SimtStack& stack = *stacks_[slot];
  lanes &= stack.mask();
  apply(slot, stack.exit(lanes, next_pc), now, next_pc);
  const uint32_t cta = slots_[slot].cta;
  host_.threads_exited(cta, static_cast<uint64_t>(std::popcount(lanes)));
  if (stack.done()) {
    finish_warp(slot);
    if (!ctas_[cta].live) return;
  } else {
    settle(slot, now);
  }
  host_.check_deadlock(cta);
}

void WarpStacks::settle(uint32_t slot, uint64_t now) {
  const SimtStack& stack = *stacks_[slot];
  const auto ncode = static_cast<uint32_t>(k_.fn.code.size());
  if (slots_[slot].live && !stack.done() && stack.pc() >= ncode)
    exit_lanes(slot, stack.mask(), stack.pc(), now);
}

void WarpStacks::finish_warp(uint32_t slot) {
  IssueSlot& s = slots_[slot];
  stats_.stack += stacks_[slot]->counters();
  s.live = false;
  host_.stop_slot(slot);
  CtaState& cta = ctas_[s.cta];
  if (--cta.live_warps == 0) cta.live = false;
  host_.warp_done(s.cta, s.parts[0].warp);
}

}  // namespace simtlm::hw
