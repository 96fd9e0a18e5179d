#pragma once
// Each memory component's parameters read from its prefix of a machine configuration, after its checks
// (cache_schema.hpp, memory_schema.hpp), at the core clock.
#include <cstdint>
#include <systemc>

#include "models/config/config_section.hpp"
#include "models/mem/cache.hpp"
#include "models/mem/crossbar.hpp"
#include "models/mem/dram_channel.hpp"
#include "models/mem/memory_system.hpp"

namespace simtlm::mem {

CacheParams l1_cache_params(const config::ConfigSection& l1, const sc_core::sc_time& clock);
// One of the l2.banks banks.
CacheParams l2_bank_params(const config::ConfigSection& l2, const sc_core::sc_time& clock);
// in_ports SM-side ports, one per L2 bank, interleaved by interleave_bytes.
CrossbarParams crossbar_params(const config::ConfigSection& interconnect, uint32_t in_ports,
                               uint32_t l2_banks, uint32_t interleave_bytes, const sc_core::sc_time& clock);
// One channel behind l2_banks / dram.channels L2 banks, channels interleaved by interleave_bytes.
DramParams dram_channel_params(const config::ConfigSection& dram, uint32_t l2_banks,
                               uint32_t interleave_bytes, const sc_core::sc_time& clock);
// The whole memory system behind `sms` SMs; the crossbar, the L2 banks and the DRAM channels interleave by
// the L2 line.
MemoryParams memory_params(const config::MachineConfig& config, uint32_t sms, const sc_core::sc_time& clock);

}  // namespace simtlm::mem
