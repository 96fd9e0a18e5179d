// The keys of stats.json that are not the timing model's: the functional runner's statistics, what every
// document says of the launch, the diagnostics and a launch sequence's rows. Declared like the units'
// statistics (common/stats.hpp), so the functional document is filled from its declaration and the schema
// document (docs/stats-schema.md) is generated from them all.
#pragma once

#include <memory>

#include "common/stats.hpp"

namespace simtlm::launch {

// kernel, launch, grid, block, shared_bytes.
stats::GroupDecl& declare_launch(stats::GroupDecl& decl);
// One entry of per_branch (keyed by PC): counts, PTX line and CUDA line of a conditional branch.
std::shared_ptr<const stats::GroupDecl> branch_row_decl();
// The functional runner's document (`simtlm run` without --config).
const stats::GroupDecl& functional_stats_decl();
// warnings and, in out_of_bounds: warn mode, out_of_bounds.
const stats::GroupDecl& diagnostics_decl();
// A launch sequence's own keys: launch_count and each launch's entry (its statistics come after these).
const stats::GroupDecl& sequence_decl();

}  // namespace simtlm::launch
