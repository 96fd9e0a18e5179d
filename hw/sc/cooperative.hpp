// Cooperative launches (cudaLaunchCooperativeKernel): the whole grid must be resident at once, since its CTAs
// wait for each other at grid barriers. CUDA refuses a grid larger than the device holds
// (cudaErrorCooperativeLaunchTooLarge); so does simtlm, in both modes, from the machine's SM limits and the
// CTA's footprint exactly as the Gpu dispatches (GridCtas::fits).
#pragma once

#include <cstdint>
#include <string>

#include "hw/sc/timing_params.hpp"
#include "hw/timing_kernel.hpp"

namespace simtlm::hw {

struct CoResidency {
  uint64_t per_sm = 0;   // CTAs of the kernel an empty SM holds at once
  uint64_t machine = 0;  // per_sm times the SMs
  std::string bound;     // the SM limit that binds first (a gpu.* key)
};

CoResidency co_resident_ctas(const GpuParams& params, const TimingKernel& kernel);

// "" when a cooperative launch of kernel.launch's grid can run on this machine, else why not.
std::string cooperative_refusal(const GpuParams& params, const TimingKernel& kernel);

}  // namespace simtlm::hw
