// The machine's limit on cooperative launches (launch::SessionOptions::cooperative_limit), from the same SM
// resources and CTA footprint the timing model dispatches with (hw/sc/cooperative.hpp). Functional runs
// use it too, so a launch refused on the machine is refused in both modes.
#pragma once

#include <functional>
#include <string>

#include "models/config/machine_config.hpp"
#include "models/ptx/functional.hpp"

namespace simtlm::sim {

std::function<std::string(const ptx::LaunchContext&)> cooperative_limit(const config::MachineConfig& machine);

}  // namespace simtlm::sim
