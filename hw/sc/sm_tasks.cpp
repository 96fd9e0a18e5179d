// Task mode on the SM (wpu.task_mode, docs/robust-simd.md): the WPU's share of the grid runs as one
// pseudo-CTA whose contexts are the hardware thread contexts of its warp-slices; the WarpSlices unit hands
// lanes their tasks through start_tasks().
#include <algorithm>
#include <bit>

#include "hw/sc/sm.hpp"

namespace simtlm::hw {

void Sm::launch_task_cta(Cta& cta, std::vector<ptx::LaneMask>& valid) {
  const uint32_t contexts = p_.wpu.contexts();
  cta.warps = contexts;
  cta.threads = contexts;
  cta.registers = 0;
  cta.shared = 0;
  for (uint32_t i = 0; i < contexts; ++i) {
    k_.executor.init_task_warp(claim_context(cta, i).ctx, cta.ctx, i);
    valid.push_back(0);
  }
}

void Sm::start_tasks(uint32_t c, uint32_t warp, ptx::LaneMask lanes, uint64_t first_task) {
  Context& context = contexts_[ctas_[c].contexts[warp]];
  uint64_t task = first_task;
  for (ptx::LaneMask m = lanes; m; m &= m - 1)
    k_.executor.start_task(context.ctx, static_cast<unsigned>(std::countr_zero(m)), task++);
  // A new task's registers hold nothing in flight; responses for the previous task's are ignored.
  ++context.generation;
  std::fill(context.reg_ready.begin(), context.reg_ready.end(), 0);
}

}  // namespace simtlm::hw
