// The host references of the workload suite (workloads/reference) as a run looks them up: what the command
// line puts in launch::SessionOptions::find_reference. models/launch cannot name workloads/, which depends on
// it.
#pragma once

#include <string>

#include "models/launch/host_reference.hpp"

namespace simtlm::sim {

// The reference named in a launch file's `reference:` key, or nullptr.
launch::ReferenceFn find_host_reference(const std::string& name);

}  // namespace simtlm::sim
