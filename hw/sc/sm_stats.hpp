// What one SM counts (docs/stats-schema.md): issue, stalls, branches, memory instructions, and what its
// divergence unit counted.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/stats.hpp"
#include "hw/divergence/divergence_stats.hpp"
#include "hw/stall.hpp"

namespace simtlm::hw {

struct BranchCounts {
  uint64_t executed = 0;   // warp executions of the conditional branch
  uint64_t divergent = 0;  // of which the active lanes split
};

struct SmStats {
  uint64_t warp_instructions = 0, thread_instructions = 0, lane_slots = 0, issue_cycles = 0;
  uint64_t active_cycles = 0;  // cycles with at least one resident warp
  uint64_t ctas = 0, warps = 0, barriers = 0;
  uint64_t max_resident_ctas = 0;  // occupancy: most CTAs resident at once (the GPU total is the maximum)
  uint64_t branches = 0, divergent_branches = 0;
  std::array<uint64_t, kStallKinds> stalls{};
  uint64_t global_instructions = 0, global_requests = 0, local_instructions = 0, local_requests = 0;
  uint64_t shared_instructions = 0, shared_conflict_cycles = 0, other_memory_instructions = 0;
  uint64_t atomics = 0;
  uint64_t warp_sync_hazards = 0;            // hw/warp_sync_checker.hpp
  uint64_t dcache_bank_conflict_cycles = 0;  // core.dcache_banks: extra cycles of requests to one bank
  uint64_t spill_requests = 0, fill_requests = 0;
  std::vector<BranchCounts> per_branch;  // per PC
  uint64_t finish_cycle = 0;             // cycle the SM's last CTA completed
  DivergenceStats divergence;            // the divergence unit's own
};

// What the fields mean, by where the GPU document writes them (hw/sc/gpu_stats.cpp merges them over SMs).
const std::vector<stats::Field<SmStats>>& sm_core_fields();    // the document's top level
const std::vector<stats::Field<SmStats>>& sm_memory_fields();  // memory.*
const std::vector<stats::Field<SmStats>>& sm_stack_fields();   // stack.*, the SM's spill engine traffic
std::vector<std::string> stall_names();                        // the elements of `stalls`, in Stall order
// One SM's row of `sms`.
const stats::GroupDecl& sm_row_stats_decl();
stats::Group sm_row_statistics(const SmStats& s);

}  // namespace simtlm::hw
