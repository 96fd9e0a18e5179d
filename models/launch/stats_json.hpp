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

// What every statistics document says about the run: kernel, launch file name, grid, block, dynamic shared
// memory.
nlohmann::json launch_json(const Launch& launch, const ptx::Function& kernel);

// One entry of "per_branch": the counts of the conditional branch at pc with its PTX and CUDA lines.
nlohmann::json branch_json(const ptx::Module& module, const ptx::Function& kernel, uint32_t pc,
                           uint64_t executed, uint64_t divergent);

struct SessionResult;
// Adds "warnings" (always for sequences, else only when there are some) and, in out_of_bounds: warn mode,
// "out_of_bounds": {"loads", "stores", "first"}; also prints them on stderr with the launch file's name.
void add_diagnostics(nlohmann::json& doc, const SessionResult& result, bool always, const std::string& file);

nlohmann::json stats_json(const Launch& launch, const ptx::Module& module, const ptx::Function& kernel,
                          const ptx::RunStats& stats, double wall_seconds);

}  // namespace simtlm::launch
