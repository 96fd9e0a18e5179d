#pragma once
// The rows of the warp processing unit's parameters (wpu.*, hw/wpu_params.hpp), their checks and their
// reader.
#include <cstdint>
#include <string>

#include "hw/wpu_params.hpp"
#include "models/config/config_section.hpp"

namespace simtlm::hw {

inline config::ParamRows wpu_rows() {
  using K = config::ParamSpec::Kind;
  return {
      {"wpu.task_mode",
       K::boolean,
       "false",
       0,
       0,
       {},
       "deprecated: divergence.unit (true: warp_slices, task mode: every thread of the grid is a task, split "
       "evenly over the SMs (WPUs), taken by width x depth hardware thread contexts; docs/robust-simd.md)",
       false,
       "divergence.unit",
       [](const std::string& value, const std::string& now) -> std::string {
         if (value == "true") return "warp_slices";
         return now == "warp_slices" ? "warp_stacks" : "";
       }},
      {"wpu.width",
       K::unsigned_int,
       "32",
       1,
       32,
       {},
       "task mode: SIMD lanes per warp (the widest warp-slice)"},
      {"wpu.depth", K::unsigned_int, "1", 1, 64, {}, "task mode: warps per WPU"},
      {"wpu.policy",
       K::choice,
       "static",
       0,
       0,
       {"static", "robust", "dws", "robust_dws"},
       "static: the fixed width x depth; robust: Robust SIMD adapts width and depth from cycles per task; "
       "dws: dynamic warp subdivision on branch and memory-latency divergence; robust_dws: both (Section "
       "VII-C)"},
      {"wpu.strategy",
       K::choice,
       "dwrep",
       0,
       0,
       {"dwrep", "width_only", "depth_only"},
       "the ASU's adaptation strategy (Section VI-A)"},
      {"wpu.stride", K::choice, "anneal", 0, 0, {"anneal", "inc"}, "the ASU's stride (Section VI-B)"},
      {"wpu.tasks_per_interval",
       K::unsigned_int,
       "2",
       1,
       1000,
       {},
       "tasks per hardware thread context of the WPU in a sampling interval"},
      {"wpu.min_intervals",
       K::unsigned_int,
       "30",
       1,
       100000,
       {},
       "a parallel-for with fewer tasks than this many intervals need runs the fallback organization"},
      {"wpu.fallback_width", K::unsigned_int, "8", 1, 32, {}, "fallback organization: width"},
      {"wpu.fallback_depth", K::unsigned_int, "2", 1, 64, {}, "fallback organization: depth"},
      {"wpu.reconfigure_cycles",
       K::unsigned_int,
       "10",
       0,
       100000,
       {},
       "pipeline stall of a reconfiguration (merging and splitting warp-slices)"},
      {"wpu.min_gain",
       K::real,
       "0",
       0,
       0.5,
       {},
       "a CPT counts as better only when lower than the best by more than this fraction (noise)"},
      {"wpu.stack_rows", K::unsigned_int, "32", 2, 256, {}, "rows of a warp's reconvergence stack"},
  };
}

// Task mode's thread contexts: wpu.width x wpu.depth and the fallback pair, each at most 64 per WPU (the
// study's limit, docs/robust-simd.md). Each key passes its own range alone (32 x 64 = 2,048), so the product
// is checked here: when a file is loaded, and again when the timing model reads the parameters after --set.
inline void check_wpu(const config::MachineConfig& config) {
  const config::ConfigSection w(config, "wpu");
  if (config.str("divergence.unit") != "warp_slices") return;
  const uint32_t contexts = w.u32("width") * w.u32("depth");
  w.require(contexts <= 64, "wpu.width x wpu.depth is at most 64 thread contexts per WPU (got " +
                                std::to_string(w.u32("width")) + " x " + std::to_string(w.u32("depth")) +
                                " = " + std::to_string(contexts) + ")");
  const uint32_t fallback = w.u32("fallback_width") * w.u32("fallback_depth");
  w.require(fallback <= 64, "wpu.fallback_width x wpu.fallback_depth is at most 64 thread contexts (got " +
                                std::to_string(w.u32("fallback_width")) + " x " +
                                std::to_string(w.u32("fallback_depth")) + " = " + std::to_string(fallback) +
                                ")");
}

inline WpuParams wpu_params(const config::MachineConfig& config) {
  check_wpu(config);  // --set overrides come after the file's checks
  const config::ConfigSection w(config, "wpu");
  WpuParams p;
  p.width = w.u32("width");
  p.depth = w.u32("depth");
  const std::string& policy = w.str("policy");
  for (size_t i = 0; i < std::size(kWpuPolicyNames); ++i) {
    if (kWpuPolicyNames[i] == policy) p.policy = static_cast<WpuPolicy>(i);
  }
  const std::string& strategy = w.str("strategy");
  p.strategy = strategy == "width_only"   ? WpuStrategy::width_only
               : strategy == "depth_only" ? WpuStrategy::depth_only
                                          : WpuStrategy::dwrep;
  p.stride = w.str("stride") == "inc" ? WpuStride::inc : WpuStride::anneal;
  p.tasks_per_interval = w.u32("tasks_per_interval");
  p.min_intervals = w.u32("min_intervals");
  p.fallback_width = w.u32("fallback_width");
  p.fallback_depth = w.u32("fallback_depth");
  p.reconfigure_cycles = w.u32("reconfigure_cycles");
  p.min_gain = w.real("min_gain");
  p.stack_rows = w.u32("stack_rows");
  p.sms = config::ConfigSection(config, "gpu").u32("sms");
  return p;
}

}  // namespace simtlm::hw
