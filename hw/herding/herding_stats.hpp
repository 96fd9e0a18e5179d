// The `herding` object of stats.json (docs/herding.md), declared once like every other unit's statistics, so
// the schema document lists its keys and a run's document is filled from the declaration.
#pragma once

#include "common/stats.hpp"

namespace simtlm::hw {

// herding: spec, budget, load latency (with data herding), per kernel and site, and totals over sites.
const stats::GroupDecl& herding_stats_decl();

}  // namespace simtlm::hw
