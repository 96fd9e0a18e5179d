#include "models/mem/mem_params.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "models/mem/cache_schema.hpp"
#include "models/mem/memory_schema.hpp"

namespace simtlm::mem {

CacheParams l1_cache_params(const config::ConfigSection& l1, const sc_core::sc_time& clock) {
  check_l1_cache(l1);
  CacheParams p = CacheParams::l1();
  p.size_bytes = l1.u32("size_bytes");
  p.assoc = l1.u32("assoc");
  p.line_bytes = l1.u32("line_bytes");
  p.sector_bytes = l1.u32("sector_bytes");
  p.banks = l1.u32("banks");
  p.hit_latency = l1.u32("hit_latency");
  p.mshrs = l1.u32("mshrs");
  p.mshr_max_merge = l1.u32("mshr_merge");
  p.write_buffer = l1.u32("write_buffer");
  p.write_policy = l1.str("write_policy") == "write_back" ? WritePolicy::kWriteBackAllocate
                                                          : WritePolicy::kWriteThroughNoAllocate;
  p.clock = clock;
  return p;
}

CacheParams l2_bank_params(const config::ConfigSection& l2, const sc_core::sc_time& clock) {
  check_l2_cache(l2);
  CacheParams p = CacheParams::l2();
  const uint32_t banks = l2.u32("banks");
  p.size_bytes = l2.u32("size_bytes") / banks;
  p.assoc = l2.u32("assoc");
  p.line_bytes = l2.u32("line_bytes");
  p.sector_bytes = std::min<uint32_t>(32, p.line_bytes);
  p.hit_latency = l2.u32("latency");
  p.mshrs = l2.u32("mshrs");
  p.mshr_max_merge = l2.u32("mshr_merge");
  p.write_buffer = l2.u32("write_buffer");
  p.atomic_cycles = l2.u32("atomic_cycles");
  p.slices = banks;
  p.clock = clock;
  return p;
}

CrossbarParams crossbar_params(const config::ConfigSection& interconnect, uint32_t in_ports,
                               uint32_t l2_banks, uint32_t interleave_bytes, const sc_core::sc_time& clock) {
  CrossbarParams p;
  p.in_ports = in_ports;
  p.out_ports = l2_banks;
  p.interleave_bytes = interleave_bytes;
  p.bytes_per_cycle = interconnect.u32("bytes_per_cycle");
  p.latency = interconnect.u32("latency");
  p.bank_queue = interconnect.u32("queue_depth");
  p.clock = clock;
  return p;
}

namespace {

double schema_default(const std::string& path) {
  for (const config::ParamSpec& spec : config::schema()) {
    if (spec.path == path) return std::stod(spec.fallback);
  }
  throw std::logic_error("no schema row " + path);
}

}  // namespace

DramParams dram_channel_params(const config::ConfigSection& dram, uint32_t l2_banks,
                               uint32_t interleave_bytes, const sc_core::sc_time& clock) {
  DramParams p;
  if (dram.str("preset") == "gddr5") {
    p = DramParams::gddr5();
    // The preset fixes the timings: one set to anything but its schema default would be ignored unsaid.
    for (const char* key :
         {"tCL", "tRCD", "tRP", "tRAS", "tCCD", "burst_length", "bus_width_bytes", "clock_ratio"}) {
      dram.require(dram.real(key) == schema_default(dram.path(key)),
                   dram.path(key) +
                       " has no effect under dram.preset: gddr5, which fixes the DRAM timings; set "
                       "dram.preset: none to give them yourself");
    }
  } else {
    p.tCL = dram.u32("tCL");
    p.tRCD = dram.u32("tRCD");
    p.tRP = dram.u32("tRP");
    p.tRAS = dram.u32("tRAS");
    p.tCCD = dram.u32("tCCD");
    p.burst_length = dram.u32("burst_length");
    p.bus_bytes = dram.u32("bus_width_bytes");
    p.clock_ratio = dram.real("clock_ratio");
  }
  p.channels = dram.u32("channels");
  p.ports = l2_banks / p.channels;
  p.banks = dram.u32("banks");
  p.row_bytes = dram.u32("row_bytes");
  p.queue_depth = dram.u32("queue_depth");
  p.in_order = dram.str("scheduler") == "fcfs";
  p.channel_interleave_bytes = interleave_bytes;
  p.fixed_latency_mode = dram.str("mode") == "fixed";
  p.fixed_latency = dram.u32("fixed_latency");
  p.clock = clock;
  return p;
}

MemoryParams memory_params(const config::MachineConfig& config, uint32_t sms, const sc_core::sc_time& clock) {
  const config::ConfigSection l1(config, "l1"), l2(config, "l2"), run(config, "run");
  MemoryParams p;
  p.sms = sms;
  p.tlm_check = run.flag("tlm_check");
  p.l1_enabled = l1.flag("enabled");
  p.l1_disabled_fraction = l1.real("disabled_fraction");
  p.l1_pollution = l1.real("pollution");
  p.l1_pollution_seed = l1.u64("pollution_seed");
  p.l1 = l1_cache_params(l1, clock);
  p.l2_enabled = l2.flag("enabled");
  p.l2_banks = l2.u32("banks");
  p.l2 = l2_bank_params(l2, clock);
  check_memory_links(config);
  p.xbar =
      crossbar_params(config::ConfigSection(config, "interconnect"), sms, p.l2_banks, p.l2.line_bytes, clock);
  p.dram = dram_channel_params(config::ConfigSection(config, "dram"), p.l2_banks, p.l2.line_bytes, clock);
  return p;
}

}  // namespace simtlm::mem
