// One SM's immutable parameters (docs/configs.md: gpu.*_per_sm, core.*, lsu.*, and its divergence unit's),
// read from a MachineConfig by sm_params(); their rows and checks are plain C++ in hw/sm_schema.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <systemc>

#include "hw/coalescer.hpp"
#include "hw/divergence/divergence_params.hpp"
#include "hw/issue_info.hpp"
#include "hw/lsu_limits.hpp"
#include "hw/warp_scheduler.hpp"
#include "models/config/machine_config.hpp"

namespace simtlm::hw {

struct PipeParams {
  uint32_t latency = 1;              // cycles from issue to result
  uint32_t initiation_interval = 1;  // cycles between issues to the unit
};

struct SmParams {
  uint32_t max_warps = 32, max_threads = 1024, max_ctas = 8, registers = 65536, shared_bytes = 49152;
  uint32_t registers_per_thread = 0;  // 0: peak live PTX register words, at most 63
  uint32_t simd_width = 32;           // a warp instruction takes ceil(32 / simd_width) passes
  uint32_t issue_width = 1;
  SchedulerPolicy scheduler = SchedulerPolicy::loose_round_robin;
  uint32_t active_set = 8;
  // int, float, double, sfu, memory, branch (core.pipelines.*)
  std::array<PipeParams, kOpClasses> pipes = {{{4, 1}, {4, 1}, {8, 4}, {20, 8}, {4, 1}, {2, 1}}};
  DivergenceParams divergence;  // the divergence unit's own (divergence.unit and its units' sections)
  uint32_t segment_bytes = 128;
  CoalescingRule coalescing = CoalescingRule::sectors;
  uint32_t line_bytes = 128;  // line of the first cache the SM's requests reach: no request is larger
  uint32_t shared_banks = 32;
  uint32_t shared_latency = 20;
  LsuLimits lsu;                  // requests in flight below the load/store unit
  bool switch_on_memory = false;  // a global or local access blocks its slot until answered
  uint32_t dcache_banks = 0;      // 0: one request per cycle; else banked by line
  sc_core::sc_time clock = sc_core::sc_time(1, sc_core::SC_NS);
};

// Every field but line_bytes, which belongs to the memory system behind the SM (MemoryParams).
SmParams sm_params(const config::MachineConfig& config, const sc_core::sc_time& clock);

}  // namespace simtlm::hw
