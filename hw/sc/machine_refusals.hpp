// The refusals of a kernel that depend on the machine: what `simtlm run` in timing mode stops with before the
// kernel's first instruction. `simtlm check --mode timing` lists them from the same functions (issue 32).
#pragma once

#include <string>
#include <vector>

#include "hw/sc/timing_params.hpp"
#include "hw/timing_kernel.hpp"

namespace simtlm::hw {

// What a CTA of `kernel` needs beyond an SM of `sm`, one "; needs N WHAT, an SM has M (KEY)" per resource
// (warp slots, threads, registers, shared memory); empty when it fits.
std::string cta_shortfall(const SmParams& sm, const TimingKernel& kernel);
// The error of a kernel whose CTA fits no SM (Gpu stops the run with it), naming each shortfall.
std::string cta_does_not_fit(const TimingKernel& kernel, const std::string& shortfall);

// Every refusal of `kernel` on the machine of `params`, in the order run meets them: the divergence unit's
// (calls under thread block compaction, task-mode restrictions of the WPU), a cooperative grid the machine
// cannot hold at once (hw/sc/cooperative.hpp), then a CTA that fits no SM (for the units that run CTAs; the
// WPU partitions tasks instead).
std::vector<std::string> machine_refusals(const GpuParams& params, const TimingKernel& kernel);

}  // namespace simtlm::hw
