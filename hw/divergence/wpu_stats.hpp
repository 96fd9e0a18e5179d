// What a WPU in task mode counts (robust-simd.txt): completed tasks, the sampling intervals of the
// adaptation phase with the organization and cycles per task of each, reconfigurations, and the splits and
// joins of dynamic warp subdivision. Declared here next to the unit that counts them (WarpSlices).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/stats.hpp"

namespace simtlm::hw {

struct WpuInterval {
  uint64_t start_cycle = 0, cycles = 0, tasks = 0;
  uint32_t width = 0, depth = 0;
  bool adapting = true;  // an interval of the adaptation phase (false: the last, partial one)
  bool dws = false;      // sampled with dynamic warp subdivision (RobustDWS's trial)
};

struct WpuStats {
  bool task_mode = false;
  std::string policy;
  uint64_t tasks = 0;  // completed
  uint64_t adaptation_cycles = 0, reconfigurations = 0, stall_cycles = 0;
  uint64_t cycles = 0;  // from the WPU's launch to its last task
  uint64_t memory_splits = 0, branch_splits = 0, joins = 0;
  bool fallback = false, dws_chosen = false;
  uint32_t width = 0, depth = 0;  // the organization of the execution phase
  std::vector<WpuInterval> intervals;
};

// The `wpu` group of a timing run's statistics: totals over WPUs and a per-WPU list with its intervals.
const stats::GroupDecl& wpu_stats_decl();
stats::Group wpu_row(const WpuStats& s);
void add_wpu_totals(stats::Group& wpu, const WpuStats& s);

}  // namespace simtlm::hw
