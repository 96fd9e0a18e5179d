#pragma once
// The warp processing unit of the Robust SIMD paper (robust-simd.txt, Sections IV-VI; docs/robust-simd.md):
// the organization (width x depth), the policy that adapts it and the ASU's parameters, as the SM
// and its WarpSlices unit read them (rows and checks: hw/wpu_schema.hpp).
#include <cstdint>
#include <string_view>

namespace simtlm::hw {

enum class WpuPolicy : uint8_t { fixed, robust, dws, robust_dws };
enum class WpuStrategy : uint8_t { dwrep, width_only, depth_only };
enum class WpuStride : uint8_t { anneal, inc };

struct WpuParams {
  uint32_t width = 32;  // lanes per warp (the widest warp-slice)
  uint32_t depth = 1;   // warps
  WpuPolicy policy = WpuPolicy::fixed;
  WpuStrategy strategy = WpuStrategy::dwrep;
  WpuStride stride = WpuStride::anneal;
  uint32_t tasks_per_interval = 2;  // per hardware thread context and sampling interval
  uint32_t min_intervals = 30;      // fewer tasks than this many intervals need: the fallback organization
  uint32_t fallback_width = 8, fallback_depth = 2;
  uint32_t reconfigure_cycles = 10;
  double min_gain = 0.0;
  uint32_t stack_rows = 32;
  uint32_t sms = 1;  // WPUs sharing the grid's tasks (gpu.sms)
  uint32_t contexts() const { return width * depth; }
  bool adapts() const { return policy == WpuPolicy::robust || policy == WpuPolicy::robust_dws; }
  bool subdivides() const { return policy == WpuPolicy::dws || policy == WpuPolicy::robust_dws; }
};

inline constexpr std::string_view kWpuPolicyNames[] = {"static", "robust", "dws", "robust_dws"};

}  // namespace simtlm::hw
