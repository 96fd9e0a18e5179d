#include "hw/work/work_source.hpp"

#include <algorithm>
#include <bit>

namespace simtlm::hw {

WorkFootprint GridCtas::footprint() const {
  return {k_.warps_per_cta, k_.threads_per_cta, k_.registers_per_thread * k_.warps_per_cta * ptx::kWarpSize,
          k_.shared_per_cta};
}

bool GridCtas::fits(const SmOccupancy& sm) const {
  const WorkFootprint f = footprint();
  return sm.units < sm.max_units && sm.contexts + f.contexts <= sm.max_contexts &&
         sm.threads + f.threads <= sm.max_threads && sm.registers + f.registers <= sm.max_registers &&
         sm.shared + f.shared <= sm.max_shared;
}

ptx::LaneMask GridCtas::start_context(ptx::WarpContext& context, ptx::CtaContext& cta, uint32_t index) const {
  k_.executor.init_warp(context, cta, index);
  return context.valid;
}

TaskPartition::TaskPartition(const TimingKernel& kernel, uint32_t wpus, uint32_t contexts)
    : k_(kernel), contexts_(contexts) {
  const uint64_t tasks = kernel.launch.grid.count() * kernel.launch.block.count();
  const uint64_t n = std::max<uint32_t>(wpus, 1);
  for (uint64_t w = 0; w < n; ++w) {
    next_.push_back(tasks * w / n);
    end_.push_back(tasks * (w + 1) / n);
  }
}

ptx::LaneMask TaskPartition::start_context(ptx::WarpContext& context, ptx::CtaContext& cta,
                                           uint32_t index) const {
  k_.executor.init_task_warp(context, cta, index);
  return 0;
}

ptx::LaneMask TaskPartition::give_tasks(uint64_t unit, ptx::WarpContext& context, ptx::LaneMask lanes) {
  ptx::LaneMask given = 0;
  for (ptx::LaneMask m = lanes; m && next_[unit] < end_[unit]; m &= m - 1) {
    const auto lane = static_cast<unsigned>(std::countr_zero(m));
    k_.executor.start_task(context, lane, next_[unit]++);
    given |= ptx::LaneMask{1} << lane;
  }
  return given;
}

}  // namespace simtlm::hw
