#include "hw/sc/sm_stats.hpp"

namespace simtlm::hw {

using stats::Field;
using stats::Kind;

const std::vector<Field<SmStats>>& sm_core_fields() {
  static const std::vector<Field<SmStats>> fields = {
      {"warp_instructions", &SmStats::warp_instructions, Kind::counter, "instructions",
       "issued warp instructions (at least one lane in the mask)"},
      {"thread_instructions", &SmStats::thread_instructions, Kind::counter, "instructions",
       "sum over issued warp instructions of the active lanes (guard-false lanes count)"},
      {"ctas", &SmStats::ctas, Kind::counter, "CTAs", "CTAs run"},
      {"max_resident_ctas_per_sm", &SmStats::max_resident_ctas, Kind::maximum, "CTAs",
       "occupancy: the most CTAs resident on one SM at once (`sms[i].max_resident_ctas` per SM); shared "
       "memory per CTA is the kernel's own (`docs/ir.md`)"},
      {"warps", &SmStats::warps, Kind::counter, "warps", "warps run"},
      {"barriers", &SmStats::barriers, Kind::counter, "barriers", "CTA-wide barrier completions"},
      {"branches", &SmStats::branches, Kind::counter, "executions",
       "warp-level executions of conditional (guarded, non-`.uni`) branches"},
      {"divergent_branches", &SmStats::divergent_branches, Kind::counter, "executions",
       "of those, executions where some active lanes took the branch and some did not"},
  };
  return fields;
}

const std::vector<Field<SmStats>>& sm_memory_fields() {
  static const std::vector<Field<SmStats>> fields = {
      {"global_instructions", &SmStats::global_instructions, Kind::counter, "instructions",
       "warp-level global accesses with an active lane"},
      {"global_requests", &SmStats::global_requests, Kind::counter, "requests",
       "TLM requests they became after coalescing"},
      {"local_instructions", &SmStats::local_instructions, Kind::counter, "instructions",
       "warp-level local accesses with an active lane"},
      {"local_requests", &SmStats::local_requests, Kind::counter, "requests",
       "TLM requests they became after coalescing"},
      {"shared_instructions", &SmStats::shared_instructions, Kind::counter, "instructions",
       "shared accesses"},
      {"shared_conflict_cycles", &SmStats::shared_conflict_cycles, Kind::counter, "cycles",
       "extra cycles of shared-memory bank conflicts"},
      {"dcache_bank_conflict_cycles", &SmStats::dcache_bank_conflict_cycles, Kind::counter, "cycles",
       "extra cycles the memory unit spent on requests to one L1 bank (core.dcache_banks; 0 when unbanked)"},
      {"constant_and_param_instructions", &SmStats::other_memory_instructions, Kind::counter, "instructions",
       "other accesses"},
      {"atomics", &SmStats::atomics, Kind::counter, "instructions",
       "atomic and reduction instructions (warp level)"},
      {"warp_sync_hazards", &SmStats::warp_sync_hazards, Kind::counter, "reads",
       "shared reads of another lane's write of the same warp, with no barrier or __syncwarp between, while "
       "a "
       "unit that forms warps ran the two lanes in different warps (docs/slp.md, \"Warp-synchronous "
       "kernels\"; "
       "always 0 under per-warp stacks)"},
  };
  return fields;
}

const std::vector<Field<SmStats>>& sm_stack_fields() {
  static const std::vector<Field<SmStats>> fields = {
      {"spill_requests", &SmStats::spill_requests, Kind::counter, "requests",
       "TLM writes the spill engine sent"},
      {"fill_requests", &SmStats::fill_requests, Kind::counter, "requests",
       "TLM reads the spill engine sent"},
  };
  return fields;
}

namespace {

const std::vector<Field<SmStats>>& row_fields() {
  static const std::vector<Field<SmStats>> fields = {
      {"ctas", &SmStats::ctas, Kind::counter, "CTAs", "CTAs the SM ran"},
      {"max_resident_ctas", &SmStats::max_resident_ctas, Kind::maximum, "CTAs",
       "most CTAs resident on the SM at once"},
      {"warp_instructions", &SmStats::warp_instructions, Kind::counter, "instructions",
       "warp instructions the SM issued"},
      {"thread_instructions", &SmStats::thread_instructions, Kind::counter, "instructions",
       "their active lanes"},
      {"issue_cycles", &SmStats::issue_cycles, Kind::counter, "cycles",
       "cycles the SM issued an instruction"},
      {"active_cycles", &SmStats::active_cycles, Kind::counter, "cycles",
       "cycles with at least one resident warp"},
      {"finish_cycle", &SmStats::finish_cycle, Kind::maximum, "cycle", "cycle the SM's last CTA completed"},
  };
  return fields;
}

}  // namespace

std::vector<std::string> stall_names() {
  std::vector<std::string> names;
  for (size_t i = 0; i < kStallKinds; ++i) names.emplace_back(stall_name(static_cast<Stall>(i)));
  return names;
}

const stats::GroupDecl& sm_row_stats_decl() {
  static const stats::GroupDecl decl = [] {
    stats::GroupDecl d("sm", "one SM");
    stats::declare(d, row_fields());
    d.vector("stalls", Kind::counter, stall_names(), "cycles",
             "the SM's cycles with resident warps and no issue");
    return d;
  }();
  return decl;
}

stats::Group sm_row_statistics(const SmStats& s) {
  stats::Group g(sm_row_stats_decl());
  stats::fill(g, s, row_fields());
  std::vector<stats::Value>& stalls = g.vector("stalls");
  for (size_t i = 0; i < kStallKinds; ++i) stalls[i] = s.stalls[i];
  return g;
}

}  // namespace simtlm::hw
