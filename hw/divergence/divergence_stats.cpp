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
      {"capri_skipped", &CompactionStats::capri_skipped, Kind::counter, "executions",
       "warp executions of branches CAPRI did not synchronize"},
      {"capri_unblocked", &CompactionStats::capri_unblocked, Kind::counter, "times",
       "times all live warps of a CTA waited but not at one place (after unsynchronized branches), so CAPRI "
       "released them (`docs/timing-model.md`)"},
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
