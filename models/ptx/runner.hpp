// The functional-only runner: a whole grid, one CTA at a time (all at once for a cooperative launch), warps
// with a reconvergence stack at the immediate post-dominators and CTA-wide barriers. The correctness baseline
// of every timing model.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/progress.hpp"
#include "models/ptx/cfg.hpp"
#include "models/ptx/functional.hpp"

namespace simtlm::ptx {

// Sees every executed warp instruction right after the functional model executed it for `mask` (and before
// the runner acts on it): how testbenches record real masks and addresses as stimulus.
using WarpObserver =
    std::function<void(const WarpContext& warp, uint32_t pc, LaneMask mask, const WarpStep& step)>;

struct RunOptions {
  uint64_t instruction_budget = 20'000'000'000ull;  // thread instructions; exceeding it is a KernelError
  // A warp that has run this many warp instructions since it was scheduled yields at its next taken
  // backward branch, so warps spinning on each other make progress (docs/functional-model.md).
  uint64_t warp_quantum = 10'000;
  WarpObserver observer{};  // optional
  // Optional: told after every CTA (a progress line).
  ProgressSink* progress = nullptr;
};

struct BranchStats {
  uint64_t executed = 0;   // warp-level executions of the conditional branch
  uint64_t divergent = 0;  // of which some active lanes took it and some did not
};

struct RunStats {
  uint64_t warp_instructions = 0;  // issued warp instructions (at least one lane in the mask)
  uint64_t thread_instructions =
      0;  // sum of active lanes over issued warp instructions (guard-false lanes count)
  uint64_t active_lane_sum = 0;  // = thread_instructions; SIMD utilization = sum / (warp_instructions * 32)
  uint64_t branches = 0;         // conditional branch warp executions
  uint64_t divergent_branches = 0;
  uint64_t barriers = 0;  // CTA-wide barrier completions
  uint64_t max_stack_depth = 0;
  uint64_t ctas = 0;
  uint64_t warps = 0;
  std::map<uint32_t, BranchStats> per_branch;  // keyed by PC
  double simd_utilization() const {
    return warp_instructions ? double(active_lane_sum) / (double(warp_instructions) * kWarpSize) : 0.0;
  }
};

class FunctionalRunner {
 public:
  FunctionalRunner(LaunchContext& launch, const Cfg& cfg, RunOptions options);
  // Runs every CTA of the grid. Throws KernelError on a runtime fault, deadlock or exceeded budget.
  RunStats run();

 private:
  LaunchContext& launch_;
  const Cfg& cfg_;
  RunOptions options_;
};

}  // namespace simtlm::ptx
