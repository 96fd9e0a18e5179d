// What the statistics documents of a launch sequence (functional: sequence.cpp; timing:
// sim/timing_sequence.cpp) derive the same way from their per-launch entries.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace simtlm::launch {

struct SequenceBranchTotals {
  std::string kernel_list;  // the kernels in the order of their first launch, joined by ", "
  nlohmann::json per_branch = nlohmann::json::object();  // "kernel:pc" -> executed and divergent, summed
};

// `launches`: the entries of SessionResult::launches, each with "kernel" and optionally "per_branch".
SequenceBranchTotals sum_launch_branches(const nlohmann::json& launches);

}  // namespace simtlm::launch
