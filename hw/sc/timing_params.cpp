#include "hw/sc/timing_params.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "hw/gpu_schema.hpp"
#include "models/config/config_section.hpp"
#include "models/mem/mem_params.hpp"

namespace simtlm::hw {
std::string time_resolution_error(const std::string& what, double period_ps,
                                  const sc_core::sc_time& resolution) {
  const double resolution_ps = resolution.to_seconds() * 1e12;
  const double held_ps = std::max(1.0, std::round(period_ps / resolution_ps)) * resolution_ps;
  const double off = std::abs(held_ps - period_ps) / period_ps;
  if (off <= 1e-3) return "";
  return fmt::format(
      "{}: a period of {:.1f} ps becomes {:.1f} ps at the simulation's time resolution of {} "
      "(sc_set_time_resolution), {:.2f}% off; use a resolution of 1 ps or finer",
      what, period_ps, held_ps, resolution.to_string(), 100 * off);
}

GpuParams gpu_params(const config::MachineConfig& config) {
  check_gpu(config);
  const config::ConfigSection gpu(config, "gpu"), run(config, "run");
  const double period_ps = 1e6 / gpu.real("clock_mhz");
  const sc_core::sc_time resolution = sc_core::sc_get_time_resolution();
  const std::string core = time_resolution_error("gpu.clock_mhz (the core clock)", period_ps, resolution);
  gpu.require(core.empty(), core);
  const config::ConfigSection dram(config, "dram");
  if (dram.str("mode") != "fixed") {
    const std::string tck = time_resolution_error("dram.clock_ratio (the DRAM command clock tCK)",
                                                  period_ps / dram.real("clock_ratio"), resolution);
    dram.require(tck.empty(), tck);
  }
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
