#include "hw/sc/timing_params.hpp"

#include <cmath>
#include <string>

namespace simtlm::hw {

namespace {

// The schema's maxima keep every value a component holds in 32 bits within them; this keeps a later,
// larger maximum from silently cutting a value.
uint32_t u32(const config::MachineConfig& c, const std::string& path) {
  const uint64_t value = c.u(path);
  if (value > UINT32_MAX)
    throw config::ConfigError(c.origin() + ": " + path + ": " + std::to_string(value) +
                              " does not fit in 32 bits");
  return static_cast<uint32_t>(value);
}

void require(bool ok, const config::MachineConfig& c, const std::string& message) {
  if (!ok) throw config::ConfigError(c.origin() + ": " + message);
}

}  // namespace

GpuParams gpu_params(const config::MachineConfig& c) {
  GpuParams g;
  g.sms = u32(c, "gpu.sms");
  g.clock_mhz = c.real("gpu.clock_mhz");
  const auto period_ps = static_cast<uint64_t>(std::llround(1e6 / g.clock_mhz));
  require(period_ps > 0, c, "gpu.clock_mhz: clock period rounds to 0 ps");
  const sc_core::sc_time clock(static_cast<double>(period_ps), sc_core::SC_PS);

  SmParams& s = g.sm;
  s.max_warps = u32(c, "gpu.max_warps_per_sm");
  s.max_threads = u32(c, "gpu.max_threads_per_sm");
  s.max_ctas = u32(c, "gpu.max_ctas_per_sm");
  s.registers = u32(c, "gpu.registers_per_sm");
  s.registers_per_thread = u32(c, "gpu.registers_per_thread");
  s.shared_bytes = u32(c, "gpu.shared_bytes_per_sm");
  s.simd_width = u32(c, "core.simd_width");
  s.issue_width = u32(c, "core.issue_width");
  s.scheduler = parse_scheduler_policy(c.str("core.scheduler"));
  s.active_set = u32(c, "core.two_level_active_warps");
  static constexpr const char* kPipes[] = {"int", "float", "double", "sfu", "memory", "branch"};
  for (size_t i = 0; i < kOpClasses; ++i) {
    const std::string base = std::string("core.pipelines.") + kPipes[i] + ".";
    s.pipes[i] = PipeParams{u32(c, base + "latency"), u32(c, base + "initiation_interval")};
  }
  s.stack.discipline = c.str("stack.discipline") == "token" ? Discipline::token : Discipline::postdom;
  s.stack.onchip_entries = u32(c, "stack.entries");
  s.stack.chunk_entries = u32(c, "stack.spill_chunk");
  require(s.stack.chunk_entries <= s.stack.onchip_entries, c, "stack.spill_chunk exceeds stack.entries");
  s.stack.spill_base = 0x7d00'0000'0000ull;  // below the shared and local windows, above any allocation
  s.stack.region_bytes = 1ull << 20;
  const std::string& preset = c.str("stack.preset");
  if (preset != "none") s.stack.timing = timing_preset(preset);
  auto custom = [&](const char* key, uint32_t& field) {
    if (const uint32_t v = u32(c, std::string("stack.cycles.") + key)) field = v;
  };
  custom("divergent_branch", s.stack.timing.divergent_branch);
  custom("pop", s.stack.timing.pop);
  custom("spill", s.stack.timing.spill);
  custom("fill", s.stack.timing.fill);
  const StackTiming& t = s.stack.timing;
  s.stack_timing_measured = t.divergent_branch || t.pop || t.spill || t.fill;
  const std::string& mechanism = c.str("compaction.mechanism");
  s.compaction = parse_compaction(mechanism).value_or(Compaction::none);
  s.permutation = c.flag("compaction.slp_disable") ? NamedPermutation::kIdentity
                                                   : *parse_permutation(c.str("compaction.permutation"));
  s.permutation_seed = c.u("compaction.seed");
  s.formation_cycles = u32(c, "compaction.formation_cycles");
  s.segment_bytes = static_cast<uint32_t>(std::stoul(c.str("lsu.segment_bytes")));
  s.shared_banks = u32(c, "lsu.shared_banks");
  s.shared_latency = u32(c, "lsu.shared_latency");
  s.lsu.loads = u32(c, "lsu.max_loads");
  s.lsu.stores = u32(c, "lsu.store_buffer");
  s.lsu.atomics = u32(c, "lsu.atomic_queue");
  s.clock = clock;

  g.l1_enabled = c.flag("l1.enabled");
  g.l1_disabled_fraction = c.real("l1.disabled_fraction");
  mem::CacheParams& l1 = g.l1;
  l1.size_bytes = u32(c, "l1.size_bytes");
  l1.assoc = u32(c, "l1.assoc");
  l1.line_bytes = u32(c, "l1.line_bytes");
  l1.sector_bytes = u32(c, "l1.sector_bytes");
  l1.banks = u32(c, "l1.banks");
  l1.hit_latency = u32(c, "l1.hit_latency");
  l1.mshrs = u32(c, "l1.mshrs");
  l1.mshr_max_merge = u32(c, "l1.mshr_merge");
  l1.write_buffer = u32(c, "l1.write_buffer");
  l1.write_policy = c.str("l1.write_policy") == "write_back" ? mem::WritePolicy::kWriteBackAllocate
                                                             : mem::WritePolicy::kWriteThroughNoAllocate;
  l1.clock = clock;
  require(l1.line_bytes % l1.sector_bytes == 0 && l1.line_bytes / l1.sector_bytes <= 32, c,
          "l1.line_bytes must be a multiple of l1.sector_bytes, at most 32 sectors");
  require(l1.size_bytes % (l1.line_bytes * l1.assoc) == 0, c,
          "l1.size_bytes must be a multiple of l1.line_bytes x l1.assoc");

  g.l2_banks = u32(c, "l2.banks");
  mem::CacheParams& l2 = g.l2;
  l2 = mem::CacheParams::l2();
  l2.size_bytes = u32(c, "l2.size_bytes") / g.l2_banks;
  l2.assoc = u32(c, "l2.assoc");
  l2.line_bytes = u32(c, "l2.line_bytes");
  l2.sector_bytes = std::min<uint32_t>(32, l2.line_bytes);
  l2.hit_latency = u32(c, "l2.latency");
  l2.mshrs = u32(c, "l2.mshrs");
  l2.mshr_max_merge = u32(c, "l2.mshr_merge");
  l2.write_buffer = u32(c, "l2.write_buffer");
  l2.atomic_cycles = u32(c, "l2.atomic_cycles");
  l2.slices = g.l2_banks;
  l2.clock = clock;
  require(l2.size_bytes % (l2.line_bytes * l2.assoc) == 0 && l2.size_bytes > 0, c,
          "l2.size_bytes / l2.banks must be a multiple of l2.line_bytes x l2.assoc");

  // An L1 fill is one request for the missing sectors of its line, so an L1 line must lie within one L2
  // line (and one crossbar bank and DRAM channel, which interleave by the L2 line).
  require(!g.l1_enabled || l1.line_bytes <= l2.line_bytes, c,
          "l1.line_bytes (" + std::to_string(l1.line_bytes) + ") must not exceed l2.line_bytes (" +
              std::to_string(l2.line_bytes) + "): an L1 fill would span two L2 lines");
  s.line_bytes = g.l1_enabled ? l1.line_bytes : l2.line_bytes;

  g.xbar.in_ports = g.sms;
  g.xbar.out_ports = g.l2_banks;
  g.xbar.interleave_bytes = l2.line_bytes;
  g.xbar.bytes_per_cycle = u32(c, "interconnect.bytes_per_cycle");
  g.xbar.latency = u32(c, "interconnect.latency");
  g.xbar.bank_queue = u32(c, "interconnect.queue_depth");
  g.xbar.clock = clock;

  const uint32_t channels = u32(c, "dram.channels");
  require(g.l2_banks % channels == 0, c,
          "l2.banks (" + std::to_string(g.l2_banks) + ") must be a multiple of dram.channels (" +
              std::to_string(channels) + "): each L2 bank talks to one channel");
  mem::DramParams& d = g.dram;
  if (c.str("dram.preset") == "gddr5") {
    d = mem::DramParams::gddr5();
  } else {
    d.tCL = u32(c, "dram.tCL");
    d.tRCD = u32(c, "dram.tRCD");
    d.tRP = u32(c, "dram.tRP");
    d.tRAS = u32(c, "dram.tRAS");
    d.tCCD = u32(c, "dram.tCCD");
    d.burst_length = u32(c, "dram.burst_length");
    d.bus_bytes = u32(c, "dram.bus_width_bytes");
    d.clock_ratio = c.real("dram.clock_ratio");
  }
  d.ports = g.l2_banks / channels;
  d.banks = u32(c, "dram.banks");
  d.row_bytes = u32(c, "dram.row_bytes");
  d.queue_depth = u32(c, "dram.queue_depth");
  d.in_order = c.str("dram.scheduler") == "fcfs";
  d.channels = channels;
  d.channel_interleave_bytes = l2.line_bytes;
  d.fixed_latency_mode = c.str("dram.mode") == "fixed";
  d.fixed_latency = u32(c, "dram.fixed_latency");
  d.clock = clock;

  g.watchdog_cycles = c.u("run.watchdog_cycles");
  g.max_cycles = c.u("run.max_cycles");
  return g;
}

}  // namespace simtlm::hw
