// docs/stats-schema.md, generated from the declarations of every key stats.json can hold: the functional
// runner's, the timing run's own, the timing model's (hw/sc/gpu_stats.cpp), the diagnostics, herding and
// launch sequences (scripts/gen-stats-doc, `simtlm stats-schema`; scripts/check-stats-schema checks real
// documents against it).
#pragma once

#include <string>

#include "common/stats.hpp"

namespace simtlm::sim {

// What a timing run's document says besides the timing model's statistics: the launch, the machine
// configuration, overrides, units and the host's speed.
const stats::GroupDecl& timing_run_decl();
std::string stats_schema_markdown();

}  // namespace simtlm::sim
