#include "studies/stack_runner.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

#include "hw/ssy_points.hpp"
#include "models/launch/session.hpp"
#include "models/ptx/call_link.hpp"
#include "models/ptx/cfg.hpp"

namespace simtlm::studies {

using namespace hw;  // the timing model this layer drives

StackRunner::StackRunner(StackParams params, uint64_t instruction_budget)
    : params_(params), budget_(instruction_budget) {}

StackRunResult StackRunner::run(const launch::Launch& launch) const {
  if (launch.grid.count() != 1 || launch.block.count() > ptx::kWarpSize) {
    throw std::invalid_argument("StackRunner runs one CTA of at most 32 threads");
  }
  // The Session validates the launch against the kernel and lays it out exactly as the functional run does.
  // Host references are checked by the caller, so the layout needs no reference lookup.
  launch::Launch layout = launch;
  layout.reference.clear();
  const launch::Session session(std::move(layout), {});
  const ptx::Function* kernel = &session.kernel();
  const std::unique_ptr<launch::DeviceImage> image = session.prepare_device();
  const ptx::LaunchContext& context = image->context;

  const ptx::Cfg cfg(*kernel);
  const SsyMap ssy(*kernel, cfg);
  const ptx::Executor executor(context);
  ptx::CtaContext cta;
  cta.ctaid = ptx::Dim3{0, 0, 0};  // Dim3 defaults to 1s (a size), not a coordinate
  cta.shared.assign(ptx::shared_layout(*kernel, launch.shared_bytes).cta_bytes, 0);
  ptx::WarpContext warp;
  warp.cta = &cta;
  executor.init_warp(warp, cta, 0);

  const auto& code = kernel->code;
  const auto ncode = static_cast<uint32_t>(code.size());
  const auto threads = static_cast<uint32_t>(launch.block.count());
  SimtStack stack(params_, 0);
  stack.reset(0, threads == ptx::kWarpSize ? ~ptx::LaneMask{0} : (ptx::LaneMask{1} << threads) - 1);
  StackRunResult result;
  uint32_t previous = ptx::kNoTarget;
  while (!stack.done()) {
    const uint32_t pc = stack.pc();
    if (pc >= ncode) {  // fell off the end: an implicit exit
      stack.exit(stack.mask(), pc);
      continue;
    }
    for (uint32_t join : ssy.fire(pc, previous)) stack.ssy(join);
    const ptx::LaneMask mask = stack.mask();
    warp.clock = result.warp_instructions;
    const ptx::WarpStep step = executor.execute(warp, pc, mask);
    ++result.warp_instructions;
    result.thread_instructions += std::popcount(mask);
    if (result.thread_instructions > budget_)
      throw ptx::KernelError("StackRunner: instruction budget exceeded");
    previous = pc;
    if (step.kind == ptx::StepKind::branch) {
      const ptx::Instr& in = code[pc];
      stack.branch(BranchOutcome{pc, mask, in.guard == ptx::kNoReg ? mask : step.taken, in.target, pc + 1,
                                 cfg.reconvergence_pc(pc)});
    } else if (step.kind == ptx::StepKind::exit) {
      if (code[pc].returns_from != ptx::kNoTarget) {
        stack.ret(step.active, pc + 1);
      } else {
        stack.exit(step.active, pc + 1);
      }
    } else if (code[pc].op == ptx::Op::call && code[pc].call_site != ptx::kNoTarget) {
      const ptx::CallSite& site = kernel->call_sites[code[pc].call_site];
      if (site.indirect) {  // lanes calling different functions run one group after the other
        ptx::CallGroups groups;
        const size_t count = ptx::call_groups(warp.call_entry, step.active, groups);
        stack.call_groups(groups.data(), count, pc + 1);
      } else {
        stack.call(step.active, pc + 1, kernel->linked_callees.at(site.linked).entry_pc);
      }
    } else {
      stack.advance(pc + 1);
    }
  }
  result.buffers = image->read_buffers(launch);
  result.stack = stack.counters();
  result.spill_requests = stack.take_requests();
  result.cycles = result.warp_instructions + result.stack.cycles;
  return result;
}

}  // namespace simtlm::studies
