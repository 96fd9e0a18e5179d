// Stimulus for the co-simulation testbench: the warp-level events of a workload of the suite, recorded from
// the functional model (ptx::RunOptions::observer). Each event is one evaluation of one unit: whole lane
// masks and address vectors, never single lanes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/ptx/runner.hpp"

namespace simtlm::cosim {

inline constexpr uint32_t kTraceWidth = ptx::kWarpSize;  // the functional model's warps are 32 lanes wide

// A conditional branch of one warp: what the majority unit votes on and the permutation unit permutes.
struct BranchEvent {
  uint64_t instruction = 0;  // index of the warp instruction in the functional run: the event's "cycle"
  uint64_t cta = 0;
  uint32_t warp = 0;  // warp index within the CTA
  uint32_t pc = 0;
  uint32_t active = 0;
  uint32_t taken = 0;  // of the active lanes, those that take the branch
};

// A global load of one warp: what data herding's popular-block selector sees. Inactive lanes hold 0.
struct LoadEvent {
  uint64_t instruction = 0;
  uint64_t cta = 0;
  uint32_t warp = 0;
  uint32_t pc = 0;
  uint32_t active = 0;
  std::array<uint64_t, kTraceWidth> address{};
};

// One side (taken or not taken) of a branch as every warp of a CTA executed it the same dynamic time: the
// CTA-wide mask thread block compaction would compact. warp_masks[w] = lanes of warp w on that side.
struct CompactionEvent {
  uint64_t instruction = 0;  // of the group's last branch (when the last warp of the CTA reached it)
  uint64_t cta = 0;
  uint32_t pc = 0;
  std::vector<uint64_t> warp_masks;
};

struct WorkloadTrace {
  std::string workload;
  std::vector<BranchEvent> branches;
  std::vector<LoadEvent> loads;
  std::vector<CompactionEvent> compactions;
  ptx::RunStats stats;  // of the recorded run: an independent count of the conditional branches
};

// The RTL compactor holds 16 warps: larger CTAs are compacted in groups of this many warps.
inline constexpr uint32_t kCompactorWarps = 16;

// Runs workloads/NAME/NAME.yaml (under `source_dir`) on the functional model and records its events.
WorkloadTrace record_workload(const std::string& source_dir, const std::string& name);

// The workloads of the suite, in the order of testbenches/unit/test_workloads.cpp.
const std::vector<std::string>& suite_workloads();

}  // namespace simtlm::cosim
