// The statistics document of a run. Everything outside "host" is deterministic, so two runs of the same
// launch file produce identical documents apart from the "host" object.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "models/launch/launch.hpp"
#include "models/ptx/ir.hpp"
#include "models/ptx/runner.hpp"

namespace simtlm::launch {

// "file.cu:42" from the instruction's .loc (file name only), or "" when it has none.
std::string cuda_location(const ptx::Module& module, const ptx::Instr& instr);

nlohmann::json stats_json(const Launch& launch, const ptx::Module& module, const ptx::Function& kernel,
                          const ptx::RunStats& stats, double wall_seconds);

}  // namespace simtlm::launch
