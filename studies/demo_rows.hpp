// The rows of `simtlm demo`'s Robust SIMD, timing, compaction and herding tables, computed here and printed
// by sc_main/ (the full studies: scripts/study-robust-simd, scripts/study-slp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/config/machine_config.hpp"
#include "models/launch/launch.hpp"
#include "models/launch/session.hpp"

namespace simtlm::studies {

// A task-mode organization of the four-WPU machine: policy, width x depth.
struct DemoOrganization {
  const char* policy;
  int width;
  int depth;
  std::string label() const;
};

struct DemoRun {
  uint64_t cycles = 0;  // 0: the run failed
  double adaptation_share = 0;
};

// One kernel: 1x1, the fastest of the fixed organizations, Robust SIMD from 32x1 and DWS from 16x2.
struct RobustDemoRow {
  DemoRun baseline, best, robust, dws;
  std::string best_label;  // of the fastest fixed organization
  // One per failed run, in run order: the organization ("robust 32x1") and why.
  std::vector<std::pair<std::string, std::string>> problems;
  bool complete() const {
    return baseline.cycles && best.cycles && robust.cycles && dws.cycles && problems.empty();
  }
};
RobustDemoRow robust_demo_row(const launch::Launch& launch, const std::filesystem::path& config,
                              const launch::SessionOptions& options);

// One workload of the timing table: its figures on the machine, and whether its outputs are the functional
// run's (`functional_sha256`, by buffer).
struct TimingDemoRow {
  std::string error;  // not empty: the run failed, nothing else is set
  uint64_t cycles = 0;
  double ipc = 0, simd_utilization = 0;
  uint64_t l1_hits = 0, l1_accesses = 0, dram_row_hits = 0, dram_rows = 0, memory_stalls = 0, stalls = 0;
  bool same_as_functional = false;
};
TimingDemoRow timing_demo_row(const std::filesystem::path& launch_file, const config::MachineConfig& machine,
                              const launch::SessionOptions& options,
                              const std::map<std::string, std::string>& functional_sha256);

// Speed-up over per-warp stacks on `config` of tbc, tbc+balanced, capri, capri+balanced and ideal, in that
// order; 0 where a run failed.
std::vector<double> compaction_demo_speedups(const launch::Launch& launch,
                                             const std::filesystem::path& config,
                                             const launch::SessionOptions& options);

// The herding table: hardware branch herding (0 and 1 cycle of decision) and data herding of the largest
// buffer, each against the exact run on the timing model (the full study: scripts/study-herding).
struct HerdingDemoCell {
  std::string mechanism;
  std::string error;  // not empty: the comparison failed
  double speedup = 0;
  double differ_percent = 0;  // output bytes that differ from the exact run's, in percent
};
std::vector<std::string> herding_demo_mechanisms();
// One kernel's row, a cell per mechanism in that order.
std::vector<HerdingDemoCell> herding_demo_row(const std::filesystem::path& launch_file,
                                              const std::filesystem::path& config);

}  // namespace simtlm::studies
