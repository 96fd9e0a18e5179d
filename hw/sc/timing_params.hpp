// The immutable parameters of the timing model, built once from a MachineConfig (docs/configs.md). Each
// component reads its own prefix (sm_params(), mem::memory_params()); every module takes its part at
// construction; nothing reads the YAML later.
#pragma once

#include <cstdint>
#include <string>
#include <systemc>

#include "hw/sc/sm_params.hpp"
#include "models/config/machine_config.hpp"
#include "models/mem/memory_system.hpp"

namespace simtlm::hw {

struct GpuParams {
  uint32_t sms = 1;
  double clock_mhz = 1000;
  SmParams sm;
  mem::MemoryParams memory;
  uint64_t watchdog_cycles = 1'000'000;
  uint64_t max_cycles = 0;  // 0 = no limit (run.max_cycles)
};

// Throws config::ConfigError when parameters contradict each other (e.g. L2 banks not a multiple of the
// DRAM channels).
GpuParams gpu_params(const config::MachineConfig& config);

// Empty when `resolution` holds a period of period_ps within 0.1%; else why not, naming `what`. gpu_params()
// checks the core clock and the DRAM command clock against sc_get_time_resolution() with it: a 1,429 ps clock
// at 1 ns resolution would silently run at 1 ns.
std::string time_resolution_error(const std::string& what, double period_ps,
                                  const sc_core::sc_time& resolution);

}  // namespace simtlm::hw
