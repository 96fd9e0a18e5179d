// Statistics a divergence unit owns: its reconvergence stacks' counts and, for the mechanisms that form
// warps, thread block compaction's (docs/stats-schema.md, sections stack and compaction).
#pragma once

#include <cstdint>
#include <vector>

#include "common/stats.hpp"
#include "hw/simt_stack.hpp"

namespace simtlm::hw {

// Thread block compaction at CTA-wide divergent branches (docs/timing-model.md).
struct CompactionStats {
  uint64_t cta_branches = 0, divergent = 0;  // CTA-wide executions of branches, and of those the divergent
  uint64_t paths = 0, compacted = 0;         // paths of divergent branches; of which fewer warps than no_tbc
  uint64_t warps_no_tbc = 0, warps_formed = 0, warps_ideal = 0;  // summed over those paths
  uint64_t formations = 0, formed_warps = 0;  // compactor runs (paths and reconvergence points), warps made
  uint64_t p_paths = 0, p_compacted = 0, d_paths = 0, d_compacted = 0;
  // CAPRI (capri_compaction.hpp): predictor lookups, of those the warps that went on without their CTA and of
  // those the ones whose own threads split; CTA-wide outcomes that trained the table, and how many it had
  // right.
  uint64_t capri_lookups = 0, capri_skipped = 0, capri_free_regions = 0;
  uint64_t capri_outcomes = 0, capri_correct = 0;
  uint64_t sync_wait_cycles = 0;  // warp-cycles slots waited for their CTA (branches, reconvergence points)
  uint64_t capri_unblocked = 0;   // times the CTA's waiting warps could not meet (CapriCompaction::unblock)
};

struct DivergenceStats {
  StackCounters stack;  // summed over warps; max_depth is the maximum
  CompactionStats compaction;
};

// What the fields mean and how they merge over SMs (the GPU document's stack.* and compaction.*,
// hw/sc/gpu_stats.cpp); the statistics library merges them, so there is no operator+= here.
const std::vector<stats::Field<StackCounters>>& stack_counter_fields();
const std::vector<stats::Field<CompactionStats>>& compaction_counter_fields();

}  // namespace simtlm::hw
