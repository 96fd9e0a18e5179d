// The GPU's statistics document (`Gpu::statistics`, docs/stats-schema.md): what every field means and how it
// merges, declared once; the SMs', load/store units', caches', crossbar's and DRAM channels' groups under it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/stats.hpp"

namespace simtlm::hw {

const stats::GroupDecl& timing_stats_decl();
// The document a timing child wrote (its "stats"), read back once into the typed group.
stats::Group timing_stats_from_json(const nlohmann::json& stats);

}  // namespace simtlm::hw
