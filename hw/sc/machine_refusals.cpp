#include "hw/sc/machine_refusals.hpp"

#include <fmt/format.h>

#include "hw/divergence/divergence_unit.hpp"
#include "hw/sc/cooperative.hpp"

namespace simtlm::hw {

std::string cta_shortfall(const SmParams& sm, const TimingKernel& kernel) {
  std::string why;
  auto check = [&](uint64_t need, uint64_t have, const char* what, const char* key) {
    if (need > have) why += fmt::format("; needs {} {}, an SM has {} ({})", need, what, have, key);
  };
  check(kernel.warps_per_cta, sm.max_warps, "warp slots", "gpu.max_warps_per_sm");
  check(kernel.threads_per_cta, sm.max_threads, "threads", "gpu.max_threads_per_sm");
  check(uint64_t(kernel.registers_per_thread) * kernel.warps_per_cta * ptx::kWarpSize, sm.registers,
        "registers", "gpu.registers_per_sm");
  check(kernel.shared_per_cta, sm.shared_bytes, "bytes of shared memory", "gpu.shared_bytes_per_sm");
  return why;
}

std::string cta_does_not_fit(const TimingKernel& kernel, const std::string& shortfall) {
  return fmt::format(
      "a CTA of kernel {} ({} threads, {} registers per thread, {} bytes of shared memory) does not fit in "
      "an "
      "SM of this configuration{}",
      kernel.fn.name, kernel.threads_per_cta, kernel.registers_per_thread, kernel.shared_per_cta, shortfall);
}

std::vector<std::string> machine_refusals(const GpuParams& params, const TimingKernel& kernel) {
  std::vector<std::string> refused;
  const DivergenceParams& unit = params.sm.divergence;
  if (std::string why = divergence_unit_refusal(unit, kernel.module, kernel.fn); !why.empty())
    refused.push_back(std::move(why));
  if (kernel.launch.cooperative) {
    if (std::string why = cooperative_refusal(params, kernel); !why.empty())
      refused.push_back(std::move(why));
  }
  if (unit.traits().work == WorkKind::grid_ctas) {
    if (const std::string shortfall = cta_shortfall(params.sm, kernel); !shortfall.empty())
      refused.push_back(cta_does_not_fit(kernel, shortfall));
  }
  return refused;
}

}  // namespace simtlm::hw
