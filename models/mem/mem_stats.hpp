// What the memory system counts (docs/stats-schema.md): the structs its components increment and the
// declarations of what they mean. Plain C++, no SystemC, so the schema document can be generated anywhere.
#pragma once

#include <cstdint>

#include "common/stats.hpp"

namespace simtlm::mem {

struct CacheStats {
  uint64_t reads = 0, writes = 0, hits = 0, misses = 0, mshr_merges = 0, reservation_failures = 0;
  uint64_t writebacks = 0, fills = 0, bank_conflicts = 0, bypasses = 0;
  uint64_t down_reads = 0, down_writes = 0;
  uint64_t atomics = 0, atomic_operations = 0, atomic_wait_cycles = 0;
  uint64_t flushes = 0, flush_writebacks = 0, flush_bytes = 0;
  uint64_t polluted_lines = 0, pollution_writebacks = 0, pollution_writeback_bytes = 0;
};

struct CrossbarPortStats {
  uint64_t requests = 0, responses = 0, req_bytes = 0, resp_bytes = 0, stalls = 0;
};

// One cache (an L1 or an L2 bank): CacheStats and the occupancy of its MSHRs and write buffer.
const stats::GroupDecl& cache_stats_decl();
// CacheStats's part of a group of cache_stats_decl().
void fill_cache_stats(stats::Group& group, const CacheStats& s);
// One DRAM channel.
const stats::GroupDecl& dram_stats_decl();
// The crossbar (one for the GPU): per SM-side port and per L2 bank.
const stats::GroupDecl& crossbar_stats_decl();
void fill_crossbar_port_stats(stats::Group& group, const CrossbarPortStats& s);

}  // namespace simtlm::mem
