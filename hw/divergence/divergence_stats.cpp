#include "hw/divergence/divergence_stats.hpp"

namespace simtlm::hw {

using stats::Field;
using stats::Kind;

const std::vector<Field<StackCounters>>& stack_counter_fields() {
  static const std::vector<Field<StackCounters>> fields = {
      {"pushes", &StackCounters::pushes, Kind::counter, "entries", "reconvergence stack pushes, all warps"},
      {"sync_pushes", &StackCounters::sync_pushes, Kind::counter, "entries",
       "of the pushes, SYNC tokens (token discipline)"},
      {"pops", &StackCounters::pops, Kind::counter, "entries", "reconvergence stack pops, all warps"},
      {"max_depth", &StackCounters::max_depth, Kind::maximum, "entries", "deepest stack of any warp"},
      {"spills", &StackCounters::spills, Kind::counter, "chunks", "chunks written to the spill region"},
      {"fills", &StackCounters::fills, Kind::counter, "chunks", "chunks read back from the spill region"},
      {"cycles", &StackCounters::cycles, Kind::counter, "cycles",
       "cycles charged by the stack's timing (preset or `stack.cycles.*`)"},
  };
  return fields;
}

const std::vector<Field<CompactionStats>>& compaction_counter_fields() {
  static const std::vector<Field<CompactionStats>> fields = {
      {"capri_lookups", &CompactionStats::capri_lookups, Kind::counter, "executions",
       "warp executions of conditional branches on the CTA's path that consulted CAPRI's prediction table"},
      {"capri_skipped", &CompactionStats::capri_skipped, Kind::counter, "executions",
       "of those, the warp went on without waiting for its CTA (predicted not to pay, or other warps had "
       "passed the branch more often)"},
      {"capri_free_regions", &CompactionStats::capri_free_regions, Kind::counter, "executions",
       "of the skipped, the warp's own threads split: it ran the branch's region on its own stack"},
      {"capri_outcomes", &CompactionStats::capri_outcomes, Kind::counter, "outcomes",
       "CTA-wide outcomes (a synchronized execution, or one skipped execution per warp) that trained the "
       "table"},
      {"capri_correct", &CompactionStats::capri_correct, Kind::counter, "outcomes",
       "of those, the ones the table predicted right"},
      {"capri_unblocked", &CompactionStats::capri_unblocked, Kind::counter, "times",
       "times all live warps of a CTA waited but not at one place (after unsynchronized branches), so CAPRI "
       "released them (`docs/timing-model.md`)"},
      {"sync_wait_cycles", &CompactionStats::sync_wait_cycles, Kind::counter, "warp-cycles",
       "cycles issue slots waited for the rest of their CTA at branches and reconvergence points, summed "
       "over slots (a warp waiting while others issue costs no SM cycle, so this is not a stall count)"},
      {"cta_branches", &CompactionStats::cta_branches, Kind::counter, "executions",
       "CTA-wide (synchronized) branch executions"},
      {"divergent_cta_branches", &CompactionStats::divergent, Kind::counter, "executions",
       "of those, the ones where the CTA's threads split"},
      {"paths", &CompactionStats::paths, Kind::counter, "paths", "paths of divergent CTA-wide branches"},
      {"compacted_paths", &CompactionStats::compacted, Kind::counter, "paths",
       "those the compactor formed fewer warps for than CTA warps with threads on them"},
      {"p_paths", &CompactionStats::p_paths, Kind::counter, "paths", "paths of P-branches (taint analysis)"},
      {"p_compacted", &CompactionStats::p_compacted, Kind::counter, "paths", "of those, compacted"},
      {"d_paths", &CompactionStats::d_paths, Kind::counter, "paths", "paths of D-branches (taint analysis)"},
      {"d_compacted", &CompactionStats::d_compacted, Kind::counter, "paths", "of those, compacted"},
      {"warps_no_tbc", &CompactionStats::warps_no_tbc, Kind::counter, "warps",
       "NW_NoTBC summed over those paths"},
      {"warps_formed", &CompactionStats::warps_formed, Kind::counter, "warps",
       "NW_TBC (or the mechanism's) summed over those paths"},
      {"warps_ideal", &CompactionStats::warps_ideal, Kind::counter, "warps",
       "NW_ideal summed over those paths"},
      {"formations", &CompactionStats::formations, Kind::counter, "runs",
       "compactor runs (paths and reconvergence points)"},
      {"formed_warps", &CompactionStats::formed_warps, Kind::counter, "warps", "warps formed"},
  };
  return fields;
}

}  // namespace simtlm::hw
