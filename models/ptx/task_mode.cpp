#include "models/ptx/task_mode.hpp"

#include <fmt/format.h>

namespace simtlm::ptx {

namespace {

const char* refused(const Instr& in) {
  switch (in.op) {
    case Op::bar:
      return "a CTA barrier (bar.sync / __syncthreads)";
    case Op::bar_warp:
    case Op::vote:
    case Op::shfl:
    case Op::activemask:
    case Op::match:
    case Op::redux:
      return "a warp-wide operation (its result depends on the warp's width)";
    case Op::call:
      return in.call_site != kNoTarget ? "a call of a .func function" : nullptr;
    default:
      return in.space == Space::shared ? "a shared-memory access (tasks of one CTA need not share an SM)"
                                       : nullptr;
  }
}

}  // namespace

std::string task_mode_refusal(const Module& module, const Function& kernel) {
  for (uint32_t pc = 0; pc < kernel.code.size(); ++pc) {
    const Instr& in = kernel.code[pc];
    const char* why = refused(in);
    if (!why) continue;
    std::string where = fmt::format("PC {}, PTX line {}", pc, in.line);
    if (in.loc_file != 0 && in.loc_file < module.files.size())
      where += fmt::format(", {}:{}", module.files[in.loc_file], in.loc_line);
    return fmt::format(
        "kernel {} cannot run in task mode (divergence.unit: warp_slices): it has {} at {}; task mode runs "
        "kernels whose threads are independent tasks",
        kernel.name, why, where);
  }
  if (shared_layout(kernel, 0).cta_bytes > 0)
    return fmt::format(
        "kernel {} cannot run in task mode (divergence.unit: warp_slices): it declares shared memory",
        kernel.name);
  return {};
}

}  // namespace simtlm::ptx
