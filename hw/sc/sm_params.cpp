#include "hw/sc/sm_params.hpp"

#include <algorithm>
#include <string>

#include "hw/sm_schema.hpp"
#include "models/config/config_section.hpp"

namespace simtlm::hw {

SmParams sm_params(const config::MachineConfig& config, const sc_core::sc_time& clock) {
  check_sm(config);
  const config::ConfigSection gpu(config, "gpu"), core(config, "core");
  const config::ConfigSection lsu(config, "lsu");
  SmParams s;
  s.max_warps = gpu.u32("max_warps_per_sm");
  s.max_threads = gpu.u32("max_threads_per_sm");
  s.max_ctas = gpu.u32("max_ctas_per_sm");
  s.registers = gpu.u32("registers_per_sm");
  s.registers_per_thread = gpu.u32("registers_per_thread");
  s.shared_bytes = gpu.u32("shared_bytes_per_sm");
  s.simd_width = core.u32("simd_width");
  s.issue_width = core.u32("issue_width");
  s.scheduler = parse_scheduler_policy(core.str("scheduler"));
  s.active_set = core.u32("two_level_active_warps");
  static constexpr const char* kPipes[] = {"int", "float", "double", "sfu", "memory", "branch"};
  for (size_t i = 0; i < kOpClasses; ++i) {
    const std::string base = std::string("pipelines.") + kPipes[i] + ".";
    s.pipes[i] = PipeParams{core.u32(base + "latency"), core.u32(base + "initiation_interval")};
  }
  s.divergence = divergence_params(config);
  s.segment_bytes = static_cast<uint32_t>(std::stoul(lsu.str("segment_bytes")));
  s.coalescing = parse_coalescing_rule(lsu.str("coalescing")).value_or(CoalescingRule::sectors);
  s.shared_banks = lsu.u32("shared_banks");
  s.shared_latency = lsu.u32("shared_latency");
  s.lsu = lsu_limits(lsu);
  s.switch_on_memory = core.flag("switch_on_memory");
  s.dcache_banks = core.u32("dcache_banks");
  // Task mode: one pseudo-CTA per WPU holds every hardware thread context, one per warp-slice.
  s.max_warps = std::max(s.max_warps, s.divergence.hardware_contexts());
  if (s.dcache_banks == 0) s.dcache_banks = s.divergence.default_dcache_banks();
  s.clock = clock;
  return s;
}

}  // namespace simtlm::hw
