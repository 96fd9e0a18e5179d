#include "sim/cooperative_limit.hpp"

#include "hw/sc/cooperative.hpp"
#include "hw/sc/timing_params.hpp"

namespace simtlm::sim {

std::function<std::string(const ptx::LaunchContext&)> cooperative_limit(
    const config::MachineConfig& machine) {
  const hw::GpuParams params = hw::gpu_params(machine);
  return [params](const ptx::LaunchContext& context) {
    const hw::TimingKernel kernel(context, params.sm.registers_per_thread, 0);
    return hw::cooperative_refusal(params, kernel);
  };
}

}  // namespace simtlm::sim
