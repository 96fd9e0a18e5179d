#pragma once
// The rows of the GPU's own parameters: the SM count and clock (gpu.sms, gpu.clock_mhz) and the run's
// guards (run.*), and the clock's check; plain C++, read by gpu_params() (hw/sc/timing_params.hpp).
#include <cmath>
#include <cstdint>

#include "models/config/config_section.hpp"

namespace simtlm::hw {

inline config::ParamRows gpu_rows() {
  using K = config::ParamSpec::Kind;
  return {
      {"gpu.sms", K::unsigned_int, "1", 1, 1024, {}, "streaming multiprocessors (SMs)"},
      {"gpu.clock_mhz", K::real, "1000", 1, 1e5, {}, "core clock; cycles convert to seconds with it"},
  };
}

inline config::ParamRows run_rows() {
  using K = config::ParamSpec::Kind;
  return {
      {"run.watchdog_cycles",
       K::unsigned_int,
       "1000000",
       1000,
       config::kLargestParam,
       {},
       "cycles in which no instruction issues and no memory request is accepted or answered anywhere "
       "before the run is reported as stuck (a request waiting behind a moving queue is progress)"},
      {"run.max_cycles",
       K::unsigned_int,
       "0",
       0,
       config::kLargestParam,
       {},
       "stop with an error naming the kernel, its running CTAs and a warp's PC after this many cycles "
       "of one kernel (a runaway kernel); 0 = none, the default: a correct kernel is never stopped however "
       "long it runs, an endless one is caught by progress (the watchdog, the livelock watch every "
       "run.watchdog_cycles / 10 cycles); set it to bound a loop that changes values forever "
       "(docs/reliability.md, Long runs and endless runs)"},
      {"run.tlm_check",
       K::boolean,
       "false",
       0,
       0,
       {},
       "put a TLM-2.0 base-protocol checker on every link of the memory system (SM to L1, L1 to crossbar, "
       "crossbar to L2, L2 to DRAM; models/mem/tlm_checker.hpp): a broken rule stops the run with an "
       "sc_report of type simtlm/tlm_check naming the link and the rule (docs/systemc.md)"},
  };
}

inline uint64_t clock_period_ps(const config::ConfigSection& gpu) {
  return static_cast<uint64_t>(std::llround(1e6 / gpu.real("clock_mhz")));
}

inline void check_gpu(const config::MachineConfig& config) {
  const config::ConfigSection gpu(config, "gpu");
  gpu.require(clock_period_ps(gpu) > 0, "gpu.clock_mhz: clock period rounds to 0 ps");
}

}  // namespace simtlm::hw
