#include "hw/sc/timing_params.hpp"

#include "hw/gpu_schema.hpp"
#include "models/config/config_section.hpp"
#include "models/mem/mem_params.hpp"

namespace simtlm::hw {

GpuParams gpu_params(const config::MachineConfig& config) {
  check_gpu(config);
  const config::ConfigSection gpu(config, "gpu"), run(config, "run");
  GpuParams g;
  g.sms = gpu.u32("sms");
  g.clock_mhz = gpu.real("clock_mhz");
  const sc_core::sc_time clock(static_cast<double>(clock_period_ps(gpu)), sc_core::SC_PS);
  g.sm = sm_params(config, clock);
  g.memory = mem::memory_params(config, g.sms, clock);
  g.sm.line_bytes = g.memory.first_line_bytes();
  g.watchdog_cycles = run.u64("watchdog_cycles");
  g.max_cycles = run.u64("max_cycles");
  return g;
}

}  // namespace simtlm::hw
